import { AttemptTimeout, DeliveryError, type ServiceUnavailableError } from '../core/errors'
import { answered, gaveUp, givenUp, outOfTime, type LastAttempt } from './attempt-errors'
import type { AttemptSignal } from '../flow-control/in-flight-limit'
import { setUnrefTimeout } from '../platform/timers'
import type { AttemptVerdict } from '../flow-control/breaker'
import { afterFailure, FAILURES_TO_SPLIT, SplitBatch, splitTrouble, type BatchTrouble } from './isolation'
import { describeRedirect, isRedirectStatus } from './redirect'
import { waitForRetry } from './retry-wait'
import { isRetryableStatus, nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from '../flow-control/retry'
import type { Release } from '../platform/socket-gate'
import type { RequestBody, Transport, TransportResponse } from '../platform/transport'

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
  /** Whether the attempt was the breaker's probe. */
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

/** What the attempt loop needs: the transport, the policy, and the scheduler's clock and timers. */
export interface DeliveryContext {
  readonly transport: Transport
  readonly policy: RetryPolicy
  readonly timeoutMs: number
  /** The host the paths are appended to, for error messages. */
  readonly host: string
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
  /** When the latest attempt that the service accepted (2xx) started, ms, client-wide. */
  readonly lastAcceptedStartMs: () => number
  /** The longest a backoff may wait now: shorter while failures build a run (the outage breaker). */
  readonly retryWaitCapMs: () => number
  /** Resolves when a retry may start under the request-rate limit. */
  readonly rateSlot: (signal: AbortSignal) => Promise<void>
  readonly now: () => number
  readonly random: () => number
  readonly onRetry: (info: RetryInfo) => void
}

/**
 * Sends one request body until it is accepted (2xx), retrying network errors, timeouts, 408,
 * 429 and 5xx (but 501 and 505) with backoff or `Retry-After`. Every attempt sends the same body,
 * so the same `messageId`s, and the service can de-duplicate. The caller holds the request's
 * in-flight slot; every attempt reports what it said about the service, and the wait before a
 * retry may lend the slot out. No retry starts while the outage breaker is open, and none ends
 * past `maxRetryTime` from the time the request's oldest message was queued. A redirect is never
 * followed: the write key and the messages go only to the configured host. A request of several
 * messages that keeps failing while the service accepts others is not retried whole: it throws a
 * {@link SplitBatch} for the caller to send its halves; one message that keeps failing alone so
 * fails with a {@link PoisonMessageError}. Those failures are not evidence of an outage.
 * @param stop - aborted when the client gives up on the request (the `closeAndFlush` timeout): one
 * signal per request, so nothing of one request (in Workers: of one incoming request) touches another.
 * @throws DeliveryError when it fails for good (a ServiceUnavailableError while the breaker is
 * open, a PoisonMessageError for a message that fails alone); SplitBatch to be split; TimeoutError
 * when `stop` aborts it.
 */
export async function deliverRequest(
  path: string,
  body: RequestBody,
  ctx: DeliveryContext,
  stop: AbortSignal,
  request: RequestInfo,
): Promise<void> {
  const { sinceMs, isProbe } = request
  let trouble = request.trouble
  let failures = 0
  let last: LastAttempt | undefined
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      const outage = ctx.outage(path)
      if (outage !== undefined) throw outage
    }
    let status: number | undefined
    let retryAfterMs: number | undefined
    let error: Error | undefined
    let said: string | undefined
    // A socket of the shared pool first: the timeout runs only while the request can be on the wire.
    const release = await acquireSocket(path, ctx, stop)
    const startedMs = ctx.now()
    // Every request makes its first attempt (up to maxRetryTime long), however long its messages
    // waited for it; no retry outlives their time budget (maxRetryTime from the oldest one's call).
    const budgetMs = attempt === 0 ? ctx.policy.maxTotalMs : ctx.policy.maxTotalMs - (startedMs - sinceMs)
    if (budgetMs <= 0) {
      release?.()
      throw outOfTime(`${ctx.host}${path}`, ctx.policy.maxTotalMs, last)
    }
    const timeoutMs = Math.max(1, Math.min(ctx.timeoutMs, budgetMs))
    let signal: AttemptSignal = 'neutral'
    let verdict: AttemptVerdict = 'alive'
    let isBatchProblem = false
    try {
      const response = await attemptOnce(path, body, ctx, timeoutMs, stop)
      status = response.status
      signal = status >= 200 && status < 300 ? 'success' : isRetryableStatus(status) ? 'overload' : 'neutral'
      verdict = status === 408 || (status >= 500 && isRetryableStatus(status)) ? 'failed' : 'alive'
      if (signal === 'success') return
      if (isRedirectStatus(status)) {
        throw new DeliveryError(`${ctx.host}${path}: ${describeRedirect(status, response.location)}`, status, attempt + 1, {
          reason: 'redirect',
          url: `${ctx.host}${path}`,
        })
      }
      if (!isRetryableStatus(status)) {
        throw new DeliveryError(
          `${ctx.host}${path}: the service answered ${answered(status, response.body)}, which is not retried`,
          status,
          attempt + 1,
          { url: `${ctx.host}${path}`, body: response.body },
        )
      }
      said = response.body
      retryAfterMs = parseRetryAfterMs(response.retryAfter, ctx.now())
    } catch (err) {
      if (err instanceof DeliveryError) throw err
      if (stop.aborted) throw givenUp(path, stop.reason)
      // A reset, a refused connection or a timeout: the service (or the way to it) is struggling.
      signal = 'overload'
      error = err instanceof Error ? err : new Error(String(err))
      // A timeout cut short by the time budget says less about the service than a full one.
      verdict = err instanceof AttemptTimeout && timeoutMs === ctx.timeoutMs ? 'timeout' : 'failed'
    } finally {
      release?.()
      // A 503 says the service is busy or down, never that the batch is wrong: it is not isolated.
      if (verdict !== 'alive' && !isProbe && status !== 503) {
        failures += 1
        ;({ trouble, isBatchProblem } = afterFailure(trouble, startedMs, ctx.lastAcceptedStartMs()))
        request.troubled?.(trouble)
      }
      ctx.attemptEnded(path, {
        signal,
        verdict,
        startedMs,
        isProbe,
        isBatchProblem,
        status,
        body: said,
        error,
      })
    }
    const outage = ctx.outage(path)
    if (outage !== undefined) throw outage
    const delayMs = nextRetryDelayMs(attempt, ctx.now() - sinceMs, retryAfterMs, ctx.policy, ctx.random)
    const failure = { status, said, error, attempts: attempt + 1 }
    last = failure
    // With no retry left (or no time), a batch problem splits at once: the halves each make a first
    // attempt, as every request does, rather than the whole batch failing with what one message did.
    const halves =
      delayMs !== undefined
        ? splitTrouble(request.count, failures, trouble, isBatchProblem)
        : isBatchProblem
          ? splitTrouble(request.count, FAILURES_TO_SPLIT, trouble, true)
          : undefined
    if (halves !== undefined) {
      // Its messages go again at once, in halves: for the counts, that is this request's retry.
      ctx.onRetry({ path, attempt: attempt + 1, delayMs: 0, status, error })
      throw new SplitBatch(halves)
    }
    if (delayMs === undefined) throw gaveUp(`${ctx.host}${path}`, failure, isBatchProblem && request.count === 1)
    // A wait the service asked for is kept; the backoff is shortened while failures build a run.
    const waitMs = retryAfterMs === undefined ? Math.min(delayMs, ctx.retryWaitCapMs()) : delayMs
    ctx.onRetry({ path, attempt: attempt + 1, delayMs: waitMs, status, error })
    await waitForRetry(path, waitMs, ctx, stop, { status, attempts: attempt + 1 }, request.place)
  }
}

async function acquireSocket(path: string, ctx: DeliveryContext, stop: AbortSignal): Promise<Release | undefined> {
  if (ctx.transport.acquire === undefined) return undefined
  try {
    return await ctx.transport.acquire(stop)
  } catch (err) {
    throw stop.aborted ? givenUp(path, stop.reason) : err
  }
}

async function attemptOnce(
  path: string,
  body: RequestBody,
  ctx: DeliveryContext,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<TransportResponse> {
  if (stop.aborted) throw stop.reason
  const controller = new AbortController()
  const abort = (): void => controller.abort(stop.reason)
  stop.addEventListener('abort', abort, { once: true })
  const timer = setUnrefTimeout(() => controller.abort(new AttemptTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs)
  try {
    // Settles on the abort even when a custom fetch ignores its signal: no attempt outlives its timeout.
    return await new Promise<TransportResponse>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
      ctx.transport.send(path, body, controller.signal).then(resolve, (err: unknown) => {
        // An abort surfaces as an AbortError; the reason (our timeout, or the shutdown) says more.
        reject(controller.signal.aborted ? controller.signal.reason : err)
      })
    })
  } finally {
    timer.cancel()
    stop.removeEventListener('abort', abort)
  }
}
