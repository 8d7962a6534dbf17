import type { RetryInfo } from '../delivery/deliver'
import { ServiceUnavailableError } from '../core/errors'
import { describeThrown } from '../core/describe'
import { createWarnOnce } from '../plan/warn-once'
import type { AnalyticsStats, BreakerChange, Observers } from './observe'
import { settleLater } from '../queue/settle'
import { failureReason, refusalReason, retryReason } from './outcome-reasons'
import type { FlushOutcome } from '../queue/scheduler'
import type { PlanViolationError } from '../plan/errors'
import type { FilteredError, PluginError } from '../plugins/errors'
import type { Callback, FlushResult } from '../core/types'

/** What the ledger needs of the client's options. */
export interface LedgerOptions {
  readonly enable: boolean
  readonly errorHandler?: ((error: Error) => void) | undefined
}

/**
 * Where a client's outcomes go: the counts `stats()` reports, the events listeners get, and the
 * rule for an error nobody asked for (a callback, else `errorHandler`, else a throw or a
 * rejection where the caller can see it). Nothing here ever throws into the library's own timers.
 */
export class ClientLedger {
  readonly #options: LedgerOptions
  readonly #observers: Observers
  #sent = 0
  #failed = 0
  #dropped = 0
  #retried = 0
  #requests = 0
  #filtered = 0
  #pluginErrors = 0
  #violations = 0
  // Messages whose request ended, delivered or not (with `enable: false` too): for `accepted`.
  #completed = 0
  // By reason: bumped only on a refusal, a failure or a retry, never for a message that goes well;
  // made on the first (an instance of a multi-tenant process that never has one holds none).
  #refusedBy: Record<string, number> | undefined
  #failedBy: Record<string, number> | undefined
  #retriedBy: Record<string, number> | undefined
  // A refused message nobody hears of (see `refuse`): one process warning per reason, per client.
  #warnUnheard: ((key: string, message: string) => void) | undefined

  constructor(options: LedgerOptions, observers: Observers) {
    this.#options = options
    this.#observers = observers
    observers.listenerThrowSink = this
  }

  /** The counts of {@link AnalyticsStats} that the ledger keeps. */
  counts(): Pick<
    AnalyticsStats,
    | 'sent'
    | 'failed'
    | 'dropped'
    | 'retried'
    | 'requests'
    | 'filtered'
    | 'pluginErrors'
    | 'violations'
    | 'refusedBy'
    | 'failedBy'
    | 'retriedBy'
  > & {
    completed: number
  } {
    return {
      completed: this.#completed,
      sent: this.#sent,
      failed: this.#failed,
      dropped: this.#dropped,
      retried: this.#retried,
      requests: this.#requests,
      filtered: this.#filtered,
      pluginErrors: this.#pluginErrors,
      violations: this.#violations,
      refusedBy: { ...this.#refusedBy },
      failedBy: { ...this.#failedBy },
      retriedBy: { ...this.#retriedBy },
    }
  }

  /** A call broke the tracking plan: counted and given to `violation` listeners, whatever becomes of the message. */
  violation(error: PlanViolationError): void {
    this.#violations += 1
    this.#observers.emit('violation', error)
  }

  /** A plugin dropped a message on purpose: an outcome for its callback and `drop` listeners, not an error. */
  filtered(error: FilteredError, callback: Callback | undefined): void {
    this.#filtered += 1
    this.#observers.emit('drop', { error, count: 1 })
    if (callback !== undefined) settleLater(callback, error, (err) => this.report(toError(err)))
  }

  /**
   * A plugin failed. The message was dropped (its callback, else errorHandler; never a throw: the
   * caller's input was valid), or it goes on (`sentAnyway`) and the error is only reported.
   */
  pluginFailed(error: PluginError, callback: Callback | undefined): void {
    this.#pluginErrors += 1
    if (error.sentAnyway) this.#observers.emit('error', error)
    else this.refuse(error, callback, false)
  }

  /**
   * A message that was never queued: its callback, else errorHandler, else (bad input only) a
   * throw. When none of these nor a `drop` or `error` listener hears of it (`track()` after
   * `closeAndFlush()`, a full queue), a process warning says so, once per reason per client.
   */
  refuse(error: Error, callback: Callback | undefined, throwIfUnhandled: boolean): void {
    const reason = refusalReason(error)
    this.#dropped += 1
    this.#refusedBy = bump(this.#refusedBy, reason, 1)
    this.#observers.emit('drop', { error, count: 1 })
    this.#observers.emit('error', error)
    if (callback !== undefined) settleLater(callback, error, (err) => this.report(toError(err)))
    else if (this.#options.errorHandler !== undefined) this.#callErrorHandler(error)
    else if (throwIfUnhandled) throw error
    else if (!this.#observers.has('drop') && !this.#observers.has('error')) {
      this.#warnUnheard ??= createWarnOnce('EVENTRAIL_DROPPED')
      this.#warnUnheard(
        reason,
        `eventrail: a message was dropped and nothing heard of it: ${error.message}. Give the call a callback, set errorHandler or listen to 'drop' to handle it; stats().refusedBy.${reason} counts them. This warning is shown once per client and reason.`,
      )
    }
  }

  /**
   * A request's outcome: `count` messages of `bytes` sent to `path`, or failed with `error`;
   * `durationMs` from the request's start, when it was started.
   */
  requestDone(path: string, count: number, bytes: number, error: Error | undefined, durationMs?: number, replayed?: number): void {
    this.#completed += count
    if (error === undefined) {
      // With `enable: false` nothing was sent: the messages have their outcome, but no request happened.
      if (!this.#options.enable) return
      this.#sent += count
      this.#requests += 1
      this.#observers.emit(
        'flush',
        replayed ? { path, count, bytes, durationMs: durationMs ?? 0, replayed } : { path, count, bytes, durationMs: durationMs ?? 0 },
      )
      return
    }
    this.#failed += count
    this.#failedBy = bump(this.#failedBy, failureReason(error), count)
    const drop = durationMs === undefined ? { error, count } : { error, count, durationMs }
    this.#observers.emit('drop', replayed ? { ...drop, replayed } : drop)
    // An outage is reported once, when the breaker opens (see `breakerChanged`), not per request.
    if (!(error instanceof ServiceUnavailableError)) this.report(error)
  }

  /**
   * A host's outage breaker opened or closed: `breaker` listeners; when every host is down (the
   * outage), then the error, once per outage. A failover (another host takes the requests) fails
   * nothing and is not reported as an error.
   */
  breakerChanged(change: BreakerChange): void {
    this.#observers.emit('breaker', change)
    if (change.state === 'open' && change.activeHost === undefined) this.report(change.error)
  }

  /** An attempt that will be made again. */
  retry(info: RetryInfo): void {
    this.#retried += 1
    this.#retriedBy = bump(this.#retriedBy, retryReason(info), 1)
    this.#observers.emit('retry', info)
  }

  /**
   * A listener threw: what it threw goes to `error` listeners and `errorHandler`; an `error`
   * listener's own throw goes to `errorHandler` only (it would meet itself again).
   */
  listenerThrew(thrown: unknown, event: string): void {
    const error = toError(thrown)
    if (event !== 'error') return this.report(error)
    if (this.#options.errorHandler !== undefined) this.#callErrorHandler(error)
  }

  /** A failed request or a throwing callback: to errorHandler when set, and to `error` listeners. */
  report(error: Error): void {
    this.#observers.emit('error', error)
    if (this.#options.errorHandler !== undefined) this.#callErrorHandler(error)
  }

  /**
   * Waits for a flush's outcome and gives it to `callback`; without one, its error rejects, unless
   * `errorHandler` has it.
   */
  /**
   * With a spool, resolves with `{ waiting }` (a {@link FlushResult}); the methods that return it
   * keep the type `Promise<void>`, which no caller's code has to change for.
   */
  async awaitOutcome(outcome: Promise<FlushOutcome>, callback: Callback | undefined): Promise<void> {
    const { error, batch, waiting } = await outcome
    const result: FlushResult | undefined = waiting === undefined ? undefined : { waiting }
    if (callback !== undefined) {
      try {
        callback(error, batch)
      } catch (err) {
        this.report(toError(err))
      }
      return result as never
    }
    // Held by an outage with a spool, the flush says how many wait ({ waiting }) instead of
    // rejecting: those messages are not failed, and the ones that did fail had their outcome.
    if (error !== undefined && this.#options.errorHandler === undefined && !(waiting !== undefined && waiting > 0)) throw error
    return result as never
  }

  /** Messages a gone client left in the spool were taken over. */
  replay(count: number, torn: number): void {
    this.#observers.emit('replay', { count, torn })
  }

  #callErrorHandler(error: Error): void {
    try {
      ;(this.#options.errorHandler as (error: Error) => void)(error)
    } catch {
      // errorHandler is the last stop: what it throws has nowhere better to go.
    }
  }
}

function bump(counts: Record<string, number> | undefined, reason: string, by: number): Record<string, number> {
  const into = counts ?? {}
  into[reason] = (into[reason] ?? 0) + by
  return into
}

/** Whatever was thrown, as an Error; never throws itself (a Symbol, an object whose toString throws). */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeThrown(value), { cause: value })
}
