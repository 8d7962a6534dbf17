import { createDeliverMethods, type DeliverMethods } from './deliver-methods'
import { EventrailError, ValidationError } from './errors'
import { MAX_TIMER_MS } from './limits'
import { ClientLedger, toError } from './client-ledger'
import { describeThrown } from './message/describe'
import { callbackError } from './message/positional'
import { createIsoClock } from './message/normalize'
import { prepareCall, type ParsedLine, type PrepareMessage } from './message/prepare'
import type { Serialized } from './message/serialize'
import { Observers, type AnalyticsEvents, type AnalyticsStats } from './observe'
import { normalizeOptions, type AnalyticsOptions, type ResolvedOptions } from './options'
import { FlushScheduler } from './queue/scheduler'
import { QUEUE_PARSED_LINE } from './internal'
import type {
  AliasMessage,
  AnyEvents,
  Callback,
  EventCatalog,
  GroupMessage,
  IdentifyMessage,
  MessageType,
  PageMessage,
  ScreenMessage,
  Traits,
  TrackMessage,
} from './types'

/** Options of {@link Analytics.closeAndFlush}. */
export interface CloseOptions {
  /**
   * Milliseconds to wait for every message to have an outcome; past it the rest fail with a
   * `TimeoutError`. Default: no limit other than the retry limits.
   */
  timeout?: number
}

/**
 * A client bound to one write key and one host. Message methods validate, serialize and queue
 * at once and never block; messages go out in batches in the background.
 *
 * @typeParam Events - optional catalog of events (event name → properties type) that `track` checks.
 * @typeParam UserTraits - optional type of `identify` traits.
 * @typeParam GroupTraits - optional type of `group` traits.
 * @example
 * ```ts
 * const analytics = new Analytics('WRITE_KEY')
 * analytics.track({ userId: 'u1', event: 'Order Completed', properties: { total: 42 } })
 * await analytics.flush()
 * ```
 */
export class Analytics<Events extends EventCatalog = AnyEvents, UserTraits extends object = Traits, GroupTraits extends object = Traits> {
  readonly #options: ResolvedOptions
  readonly #scheduler: FlushScheduler
  readonly #observers = new Observers()
  readonly #ledger: ClientLedger
  readonly #clock = createIsoClock()
  #deliver: DeliverMethods<Events, UserTraits, GroupTraits> | undefined

  /**
   * @param writeKey - the source's write key: the user name of the Basic auth of every request.
   * @param options - see {@link AnalyticsOptions}.
   * @throws ValidationError when the write key is missing or an option is invalid; the message names it.
   */
  constructor(writeKey: string, options?: AnalyticsOptions) {
    this.#options = normalizeOptions(writeKey, options)
    const ledger = new ClientLedger(this.#options, this.#observers)
    this.#ledger = ledger
    this.#scheduler = new FlushScheduler(this.#options, {
      requestDone: (path, entries, bytes, error) => ledger.requestDone(path, entries.length, bytes, error),
      retry: (info) => ledger.retry(info),
      report: (err) => ledger.report(toError(err)),
      breaker: (change) => (change.state === 'open' ? ledger.breakerOpened(change.error) : ledger.breakerClosed(change.downMs)),
    })
  }

  /**
   * Queues an identify message: who the user is and their traits.
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com' } })
   * ```
   */
  identify(message: IdentifyMessage<UserTraits>, callback?: Callback): this {
    return this.#enqueue('identify', message, callback)
  }

  /**
   * Queues a track message: an action the user performed.
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.track({ userId: 'u1', event: 'Item Purchased', properties: { price: 9.5 } })
   * ```
   */
  track(message: TrackMessage<Events>, callback?: Callback): this {
    return this.#enqueue('track', message, callback)
  }

  /**
   * Queues a page message: the user viewed a web page.
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.page({ anonymousId: 'a1', name: 'Pricing', properties: { url: 'https://example.com/pricing' } })
   * ```
   */
  page(message: PageMessage, callback?: Callback): this {
    return this.#enqueue('page', message, callback)
  }

  /**
   * Queues a screen message: the user viewed a screen of a mobile app.
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.screen({ userId: 'u1', name: 'Settings' })
   * ```
   */
  screen(message: ScreenMessage, callback?: Callback): this {
    return this.#enqueue('screen', message, callback)
  }

  /**
   * Queues a group message: the user belongs to a group (company, account, team).
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.group({ userId: 'u1', groupId: 'acme', traits: { plan: 'pro' } })
   * ```
   */
  group(message: GroupMessage<GroupTraits>, callback?: Callback): this {
    return this.#enqueue('group', message, callback)
  }

  /**
   * Queues an alias message: `previousId` and `userId` are the same user. Sent to `/v1/alias` on its own.
   * @throws ValidationError when the message is invalid and there is neither a callback nor an `errorHandler`.
   * @example
   * ```ts
   * analytics.alias({ previousId: 'anon-7', userId: 'u1' })
   * ```
   */
  alias(message: AliasMessage, callback?: Callback): this {
    return this.#enqueue('alias', message, callback)
  }

  /**
   * The message methods in a form you can await: `await analytics.deliver.track(message)` queues
   * the message like {@link Analytics.track}, has it sent right after the current synchronous run
   * of calls (not after `flushAt` or `flushInterval`), and resolves with its own outcome, `{ delivered: true,
   * messageId }` or `{ delivered: false, messageId, error }`. It never rejects, and settles within
   * the retry budget. Calls that do not use it pay nothing for it.
   * @example
   * ```ts
   * // A serverless handler that must know its event arrived before it answers.
   * export async function handler(event) {
   *   const outcome = await analytics.deliver.track({ userId: event.user, event: 'Checkout Completed' })
   *   if (!outcome.delivered) console.warn('analytics', outcome.messageId, outcome.error.message)
   *   return { statusCode: 200 }
   * }
   * ```
   */
  get deliver(): DeliverMethods<Events, UserTraits, GroupTraits> {
    this.#deliver ??= createDeliverMethods(
      (type, message, callback) => this.#enqueue(type, message, callback),
      () => this.#scheduler.expedite(),
    )
    return this.#deliver
  }

  /**
   * Sends everything queued now. Resolves (and calls `callback`) when every message enqueued
   * before the call has an outcome, including messages already in flight or waiting to be retried.
   *
   * Without `errorHandler`, the promise rejects with the first error among those messages
   * (a `DeliveryError` with the HTTP status when there was one); with `errorHandler`, or when a
   * `callback` is given (it gets the error), it always resolves.
   * @example
   * ```ts
   * export async function handler(event) {
   *   analytics.track({ userId: event.user, event: 'Invoked' })
   *   await analytics.flush()
   * }
   * ```
   */
  flush(callback?: Callback): Promise<void> {
    return this.#ledger.awaitOutcome(this.#scheduler.flush(callback !== undefined), callback)
  }

  /**
   * Stops intake (later messages get a `ClosedError`) and sends everything queued. Resolves when
   * every message has an outcome, or when `timeout` ms have passed (the rest then fail with a
   * `TimeoutError`). Rejects like {@link Analytics.flush}.
   * @example
   * ```ts
   * process.on('SIGTERM', async () => {
   *   await analytics.closeAndFlush({ timeout: 5000 })
   *   process.exit(0)
   * })
   * ```
   */
  closeAndFlush(options: CloseOptions = {}): Promise<void> {
    const timeout = options.timeout
    // A timer cannot wait past 2^31-1 ms (it would fire at once); Infinity means no limit.
    if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout >= 0) || (timeout > MAX_TIMER_MS && timeout !== Infinity))) {
      return Promise.reject(
        new ValidationError(
          'timeout',
          `must be a number from 0 to ${MAX_TIMER_MS} (milliseconds), or Infinity for no limit`,
          'closeAndFlush',
        ),
      )
    }
    return this.#ledger.awaitOutcome(this.#scheduler.close(timeout === Infinity ? undefined : timeout), undefined)
  }

  /**
   * Listens to what the client does: `error`, `retry`, `drop`, `flush`. Nothing is ever logged to the console.
   * @example
   * ```ts
   * analytics.on('retry', (info) => metrics.increment('analytics.retry', { status: info.status }))
   * ```
   */
  on<K extends keyof AnalyticsEvents>(event: K, listener: (payload: AnalyticsEvents[K]) => void): this {
    this.#observers.on(event, listener)
    return this
  }

  /** Removes a listener added with {@link Analytics.on}. */
  off<K extends keyof AnalyticsEvents>(event: K, listener: (payload: AnalyticsEvents[K]) => void): this {
    this.#observers.off(event, listener)
    return this
  }

  /**
   * A snapshot of the counts: queued, in flight, sent, failed, dropped, retried, requests, and the in-flight limit.
   * @example
   * ```ts
   * const { queued, failed } = analytics.stats()
   * ```
   */
  stats(): AnalyticsStats {
    const attempts = this.#scheduler.attempts
    const { sent, failed, dropped, retried, requests } = this.#ledger.counts()
    return {
      queued: this.#scheduler.queued,
      inFlight: this.#scheduler.inFlight,
      sent,
      failed,
      dropped,
      retried,
      requests,
      requestsInFlight: attempts.active,
      inFlightLimit: attempts.limit,
      breaker: this.#scheduler.breaker,
    }
  }

  /**
   * Internal, for `importMessages`: queues a line of JSON text already parsed, validated exactly as
   * a call's message and, when its text is already what would be sent, sent as written. The import
   * gives `prepare` (`prepareParsedLine`), so that a client that never imports does not load it.
   * @internal
   */
  [QUEUE_PARSED_LINE](type: MessageType, line: ParsedLine, callback: Callback, prepare: PrepareMessage<ParsedLine>): void {
    this.#enqueue(type, line, callback, prepare)
  }

  #enqueue<T>(type: MessageType, message: T, callback: Callback | undefined, prepare: PrepareMessage<T> = prepareCall): this {
    if (callback !== undefined && typeof callback !== 'function') {
      // There is no callback to give the error to: errorHandler, else a throw.
      this.#ledger.refuse(callbackError(type, message, callback), undefined, true)
      return this
    }
    let serialized: Serialized
    try {
      // Read once: validation, normalization and serialization see only the client's own copy.
      serialized = prepare(type, message, this.#clock)
    } catch (err) {
      // What the caller's object throws is already a ValidationError naming the field (the
      // snapshot reads every field once, itself); anything else failed in the client or the
      // runtime, not in the message, and is not blamed on it.
      const error =
        err instanceof EventrailError
          ? err
          : new EventrailError(
              `${type}: the client failed to queue the message (${describeThrown(err)}); the message itself was not at fault`,
              {
                cause: err,
              },
            )
      this.#ledger.refuse(error, callback, true)
      return this
    }
    const refused = this.#scheduler.enqueue(serialized, type === 'alias', callback)
    if (refused !== undefined) this.#ledger.refuse(refused, callback, false)
    return this
  }
}
