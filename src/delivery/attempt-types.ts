import type { ServiceUnavailableError } from '../core/errors'
import type { AttemptSignal } from '../flow-control/in-flight-limit'
import type { AttemptVerdict } from '../flow-control/breaker'
import type { BatchTrouble } from './isolation'
import type { RetryPolicy } from '../flow-control/retry'
import type { Transport } from '../platform/transport'

// The shapes the attempt loop (`deliver.ts`) works with: what it is given, and what it reports.

/** One retry about to happen: reported to `on('retry')` listeners. */
export interface RetryInfo {
  /** The path of the request, e.g. `/v1/batch`. */
  readonly path: string
  /** The number of the retry about to be made, from 1. */
  readonly attempt: number
  /** How long the client waits before it, ms. */
  readonly delayMs: number
  /** The status that failed, when the failure was an HTTP answer. */
  readonly status?: number
  /** The network error or timeout, when there was no answer. */
  readonly error?: Error
}

/** What one attempt said about the service: for the in-flight limit and the outage breaker. */
export interface AttemptReport {
  /** For the in-flight limit: success, overload (429, 5xx, a reset, a timeout) or neither. */
  readonly signal: AttemptSignal
  /** For the breaker: the service answered (any answer but 408 and 5xx), or the attempt failed or timed out. */
  readonly verdict: AttemptVerdict
  /** When the attempt started, ms. */
  readonly startedMs: number
  /** The host the attempt went to (`host`, or one of `fallbackHosts`). */
  readonly host: string
  /** Whether the attempt was the breaker's probe of its host. */
  readonly isProbe: boolean
  /** A failure of a request that keeps failing while the service accepts others: not a sign of an outage. */
  readonly isBatchProblem?: boolean
  /** The status, when the service answered. */
  readonly status?: number | undefined
  /** The beginning of the body of an error answer, quoted. */
  readonly body?: string | undefined
  /** The network error or timeout, when it did not. */
  readonly error?: Error | undefined
}

/** One request as the attempt loop sees it. */
export interface RequestInfo {
  /** When its oldest message was queued, ms: `maxRetryTime` runs from there. */
  readonly sinceMs: number
  /** Whether it is the outage breaker's probe: one attempt, no retry. */
  readonly isProbe: boolean
  /** How many messages it carries: several are split when they keep failing while others get through; one then fails alone. */
  readonly count: number
  /** What it knows of its batch's failures (the halves of a split batch start from their parent's). */
  readonly trouble: BatchTrouble
  /** Told what it knows after each failed attempt (a request sent again keeps it). */
  readonly troubled?: (trouble: BatchTrouble) => void
  /** A batch request's place among the batches in flight, lent out while it waits for a retry; none for others. */
  readonly place?: { lend(): void; reclaim(): void }
}

/** Where one attempt goes: a host the user listed (`host` or `fallbackHosts`), and its transport. */
export interface Route {
  /** The host the path is appended to. */
  readonly host: string
  readonly transport: Transport
  /** Whether the attempt is the probe of its host's outage breaker (the host is down, maybe not the others). */
  readonly isProbe: boolean
  /** The attempt is not made after all (the request ended first): a probe it was may start again. */
  readonly cancel: () => void
}

/** What the attempt loop needs: the hosts, the policy, and the scheduler's clock and timers. */
export interface DeliveryContext {
  /** The transport of `host`: whether bodies may be bytes is the same for every host. */
  readonly transport: Transport
  readonly policy: RetryPolicy
  readonly timeoutMs: number
  /** Where the next attempt goes; `isProbe` when the request is the probe made while every host is down. */
  readonly route: (isProbe: boolean) => Route
  /** Resolves after `ms`; rejects when `signal` aborts, or with a ServiceUnavailableError when the breaker opens meanwhile. */
  readonly sleep: (ms: number, signal: AbortSignal, path: string) => Promise<void>
  /** An attempt to `path` ended: what it said about the service. */
  readonly attemptEnded: (path: string, report: AttemptReport) => void
  /** The error of a request that fails while the breaker is open, or undefined while it is closed. */
  readonly outage: (path: string) => ServiceUnavailableError | undefined
  /** The request starts to wait for a retry: it may lend its in-flight slot meanwhile. */
  readonly pauseSlot: () => void
  /** The wait failed: the request holds its slot again at once (over the limit if need be), to give it back as it ends. */
  readonly reclaimSlot: () => void
  /** Resolves when the request, its wait over, holds an in-flight slot again. */
  readonly resumeSlot: (signal: AbortSignal) => Promise<void>
  /** When the latest attempt that `host` accepted (2xx) started, ms, client-wide. */
  readonly lastAcceptedStartMs: (host: string) => number
  /**
   * The longest a backoff after a failure on `failedHost` may wait now: shorter while failures
   * build a run (the outage breaker), 0 when that host is down and another takes the requests.
   */
  readonly retryWaitCapMs: (failedHost: string) => number
  /** Resolves when a retry may start under the request-rate limit. */
  readonly rateSlot: (signal: AbortSignal) => Promise<void>
  readonly now: () => number
  readonly random: () => number
  readonly onRetry: (info: RetryInfo) => void
}
