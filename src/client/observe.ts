import { Emitter } from '../core/emitter'
import type { PlanViolationError } from '../plan/errors'
import type { RetryInfo } from '../delivery/deliver'
import type { ServiceUnavailableError } from '../core/errors'
import type { SpoolStats } from '../durability/spool/index'

export type { SpoolStats } from '../durability/spool/index'

/** A request that was delivered: reported to `on('flush')` listeners. */
export interface FlushInfo {
  /** `/v1/batch` or `/v1/alias`. */
  readonly path: string
  /** Messages in the request. */
  readonly count: number
  /** Bytes of the (uncompressed) request body. */
  readonly bytes: number
  /** From the request's start to its outcome (retries included), ms. */
  readonly durationMs: number
  /** With a spool: how many of the messages a process that is gone had left in it (their callbacks went with it). */
  readonly replayed?: number
}

/** Messages that will not be delivered: reported to `on('drop')` listeners. */
export interface DropInfo {
  /** Why: a ValidationError, QueueFullError, ClosedError, DeliveryError, TimeoutError, FilteredError or PluginError. */
  readonly error: Error
  /** How many messages. */
  readonly count: number
  /** For messages whose request failed: from the request's start to its outcome, ms. */
  readonly durationMs?: number
  /** With a spool: how many of the messages a process that is gone had left in it. */
  readonly replayed?: number
}

/**
 * With a spool: messages that a client that is gone (killed, crashed, closed while the service was
 * down) left in the spool directory were taken over, to be sent with their own `messageId`s;
 * `torn` records (cut off by a crash) were skipped. Reported to `on('replay')` listeners; each
 * message's outcome then comes with `flush` and `drop` events (`replayed` counts them).
 */
export interface ReplayInfo {
  readonly count: number
  readonly torn: number
}

/**
 * The outage breaker of `host` opened (the host is down) or closed again (after `downMs`):
 * reported to `on('breaker')` listeners. `activeHost` is where requests go now. Without
 * `fallbackHosts` it is `host` once closed and none once open: the service is down, and messages
 * fail at once with `error` (or wait in the spool) until a probe gets an answer. With
 * `fallbackHosts`, an `open` with an `activeHost` is a failover (nothing fails: requests go to that
 * host, and `host` is probed); an `open` without one means every host is down.
 */
export type BreakerChange =
  | {
      readonly state: 'open'
      /** The host whose breaker opened. */
      readonly host: string
      readonly error: ServiceUnavailableError
      /** The host requests go to now; undefined while every host is down. */
      readonly activeHost: string | undefined
    }
  | {
      readonly state: 'closed'
      /** The host whose breaker closed: it answers again. */
      readonly host: string
      readonly downMs: number
      /** The host requests go to now (the first one, in order, that answers). */
      readonly activeHost: string
    }

/** One host (`host`, then each of `fallbackHosts`) as `stats().hosts` shows it. */
export interface HostStats {
  readonly host: string
  /** Its outage breaker: `'closed'` while it answers, `'open'` while it is down, `'probing'` while a probe of it is in flight. */
  readonly state: 'closed' | 'open' | 'probing'
  /** Whether requests go to it now: the first host, in order, whose breaker is closed. */
  readonly active: boolean
}

/** The events of `analytics.on(event, listener)` and what each listener receives. */
export interface AnalyticsEvents {
  /** A request failed for good, a message was refused, or a callback threw. */
  error: Error
  /** A request is about to be retried. */
  retry: RetryInfo
  /** Messages will not be delivered. */
  drop: DropInfo
  /** A request was delivered. */
  flush: FlushInfo
  /** A call broke the tracking plan (the `plan` option), whatever `planMode` then did with it. */
  violation: PlanViolationError
  /** The outage breaker opened or closed. */
  breaker: BreakerChange
  /** With a spool: messages a gone client left were taken over. */
  replay: ReplayInfo
}

/** A snapshot of what an instance has done, from `analytics.stats()`. */
export interface AnalyticsStats {
  /** Messages queued, not yet in a request. */
  readonly queued: number
  /** Messages waiting for a plugin's promise, not yet queued. */
  readonly inPlugins: number
  /** Messages in requests being sent or waiting to be retried. */
  readonly inFlight: number
  /** Messages delivered (a 2xx answer). */
  readonly sent: number
  /** Messages whose request failed for good. */
  readonly failed: number
  /** Messages refused before they were queued (invalid, too large, queue full, closed, a plugin failed). */
  readonly dropped: number
  /** Messages a plugin dropped on purpose (it returned `null`): not counted in `dropped`. */
  readonly filtered: number
  /** Plugin failures (throws, rejections, timeouts, invalid results), whether the message was dropped or sent anyway. */
  readonly pluginErrors: number
  /** Calls that broke the tracking plan, whatever `planMode` did with them. */
  readonly violations: number
  /** Retries made. */
  readonly retried: number
  /** Messages taken in: queued at some point (sent, failed, or still queued or in flight). */
  readonly accepted: number
  /** Most messages held at once (`maxQueueSize`). */
  readonly queueCapacity: number
  /**
   * `dropped` by reason: `invalid`, `too_large`, `plan_violation`, `plan_error`, `queue_full`,
   * `closed`, `plugin_error`, `close_timeout` (still in a plugin when the `closeAndFlush` timeout
   * passed), `consent` (withheld for consent: `eventrail/context`), `client_error`. Only reasons
   * that happened are present.
   */
  readonly refusedBy: Readonly<Record<string, number>>
  /** `failed` by reason: the HTTP status (`'400'` …), `timeout`, `network`, `service_unavailable`, `close_timeout`, `error`. */
  readonly failedBy: Readonly<Record<string, number>>
  /** `retried` by reason: the HTTP status (`'503'`, `'429'` …), `timeout`, `network`. */
  readonly retriedBy: Readonly<Record<string, number>>
  /** Requests delivered. */
  readonly requests: number
  /** Requests with an HTTP attempt in flight now (a fixed `maxInFlight` also counts those waiting to be retried). */
  readonly requestsInFlight: number
  /** How many requests may be in flight now: the adaptive limit, or `maxInFlight` when set. */
  readonly inFlightLimit: number
  /**
   * The outage breaker: `'closed'` while the service answers; `'open'` while it is down (messages
   * fail at once, or wait for the next probe); `'probing'` while a probe request is in flight.
   */
  readonly breaker: 'closed' | 'open' | 'probing'
  /**
   * With `fallbackHosts`: each host in order (`host` first), its breaker and whether requests go to
   * it now; absent without. `breaker` is then `'closed'` while any host answers.
   */
  readonly hosts?: readonly HostStats[]
  /** With a spool: its files, what waits in it, what was replayed; absent without one. */
  readonly spool?: SpoolStats
}

/** The client's typed event emitter: a throwing listener is reported to the ledger, never lost (see `Emitter`). */
export class Observers extends Emitter<AnalyticsEvents> {}
