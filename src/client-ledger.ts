import type { RetryInfo } from './delivery/deliver'
import { ServiceUnavailableError } from './errors'
import { describeThrown } from './message/describe'
import type { AnalyticsStats, Observers } from './observe'
import { settleLater } from './outcome'
import type { FlushOutcome } from './queue/scheduler'
import type { Callback } from './types'

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

  constructor(options: LedgerOptions, observers: Observers) {
    this.#options = options
    this.#observers = observers
  }

  /** The counts of {@link AnalyticsStats} that the ledger keeps. */
  counts(): Pick<AnalyticsStats, 'sent' | 'failed' | 'dropped' | 'retried' | 'requests'> {
    return { sent: this.#sent, failed: this.#failed, dropped: this.#dropped, retried: this.#retried, requests: this.#requests }
  }

  /** A message that was never queued: its callback, else errorHandler, else (bad input only) a throw. */
  refuse(error: Error, callback: Callback | undefined, throwIfUnhandled: boolean): void {
    this.#dropped += 1
    this.#observers.emit('drop', { error, count: 1 })
    this.#observers.emit('error', error)
    if (callback !== undefined) settleLater(callback, error, (err) => this.report(toError(err)))
    else if (this.#options.errorHandler !== undefined) this.#callErrorHandler(error)
    else if (throwIfUnhandled) throw error
  }

  /** A request's outcome: `count` messages of `bytes` sent to `path`, or failed with `error`. */
  requestDone(path: string, count: number, bytes: number, error: Error | undefined): void {
    if (error === undefined) {
      // With `enable: false` nothing was sent: the messages have their outcome, but no request happened.
      if (!this.#options.enable) return
      this.#sent += count
      this.#requests += 1
      this.#observers.emit('flush', { path, count, bytes })
      return
    }
    this.#failed += count
    this.#observers.emit('drop', { error, count })
    // An outage is reported once, when the breaker opens (see `breakerOpened`), not per request.
    if (!(error instanceof ServiceUnavailableError)) this.report(error)
  }

  /** The outage breaker opened: `breaker` listeners, then the error, once per outage. */
  breakerOpened(error: ServiceUnavailableError): void {
    this.#observers.emit('breaker', { state: 'open', error })
    this.report(error)
  }

  /** The outage breaker closed after `downMs`: the service answers again. */
  breakerClosed(downMs: number): void {
    this.#observers.emit('breaker', { state: 'closed', downMs })
  }

  /** An attempt that will be made again. */
  retry(info: RetryInfo): void {
    this.#retried += 1
    this.#observers.emit('retry', info)
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
  async awaitOutcome(outcome: Promise<FlushOutcome>, callback: Callback | undefined): Promise<void> {
    const { error, batch } = await outcome
    if (callback !== undefined) {
      try {
        callback(error, batch)
      } catch (err) {
        this.report(toError(err))
      }
      return
    }
    if (error !== undefined && this.#options.errorHandler === undefined) throw error
  }

  #callErrorHandler(error: Error): void {
    try {
      ;(this.#options.errorHandler as (error: Error) => void)(error)
    } catch {
      // errorHandler is the last stop: what it throws has nowhere better to go.
    }
  }
}

/** Whatever was thrown, as an Error; never throws itself (a Symbol, an object whose toString throws). */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeThrown(value), { cause: value })
}
