import { createDeliverMethods, type DeliverMethods } from './deliver-methods'
import { ValidationError } from '../core/errors'
import { closeTimeoutOf, flushArgumentOf, type CloseOptions } from './close-options'
import { clientStats, wireClient } from './wiring'
import { closeClient, flushClient } from './flush-close'
import { enqueueCall } from './enqueue'
import type { ClientLedger } from './ledger'
import { createIsoClock } from '../message/normalize'
import { prepareCall, type ParsedLine, type PrepareMessage } from '../message/prepare'
import { Observers, type AnalyticsEvents, type AnalyticsStats } from './observe'
import type { AnalyticsOptions, ResolvedOptions } from '../config/options'
import { normalizeOptions } from '../config/normalize-options'
import type { FlushScheduler } from '../queue/scheduler'
import { AMBIENT_SOURCE, IMPORT_VIEW, QUEUE_PARSED_LINE } from '../core/internal'
import type { AmbientSource } from './ambient'
import type { ImportClient } from '../core/import-source'
import { importThroughPipeline } from './import-view'
import type { MessagePipeline } from '../pipeline/pipeline'
import type { TrackingPlan } from '../plan/define-plan'
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
  TrackInput,
} from '../core/types'

// One clock for every instance (it reads Date.now() at each call): an idle instance of a
// multi-tenant process keeps no clock of its own.
const isoClock = createIsoClock()

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
  readonly #pipeline: MessagePipeline | undefined
  #deliver: DeliverMethods<Events, UserTraits, GroupTraits> | undefined
  // eventrail/context's slot: unset (one check per call) until a context is used with this client.
  #ambient: AmbientSource | undefined

  /**
   * @param writeKey - the source's write key: the user name of the Basic auth of every request.
   * @param options - see {@link AnalyticsOptions}.
   * @throws ValidationError when the write key is missing or an option is invalid; the message names it.
   */
  constructor(writeKey: string, options?: AnalyticsOptions & { plan?: TrackingPlan<Events, UserTraits, GroupTraits> }) {
    this.#options = normalizeOptions(writeKey, options)
    const parts = wireClient(this.#options, this.#observers, isoClock)
    this.#ledger = parts.ledger
    this.#scheduler = parts.scheduler
    this.#pipeline = parts.pipeline
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
  track(message: TrackInput<Events>, callback?: Callback): this {
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
   * the retry budget. With a `spool`, a message the service has not taken by then (or sent while
   * the outage breaker is open) settles `{ delivered: false, kept: true, messageId, error }`: it
   * waits on disk and is delivered later. Calls that do not use it pay nothing for it.
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
      () => this.#expedite(),
    )
    return this.#deliver
  }

  // Someone awaits: send what is queued right after this run of calls, and what async plugins
  // still hold as soon as they let it go.
  #expedite(): void {
    this.#scheduler.expedite()
    void this.#pipeline?.settled()?.then(() => this.#scheduler.expedite())
  }

  /**
   * Sends everything queued now. Resolves (and calls `callback`) when every message enqueued
   * before the call has an outcome, including messages already in flight or waiting to be retried.
   *
   * Without `errorHandler`, the promise rejects with the first error among those messages
   * (a `DeliveryError` with the HTTP status when there was one); with `errorHandler`, or when a
   * `callback` is given (it gets the error), it always resolves.
   *
   * With a `spool`, messages that read back from the disk are sent too, and while the service is
   * down the promise resolves as soon as the messages are synced to disk, with `{ waiting }`
   * (a {@link FlushResult}: how many wait for the service); it resolves with `{ waiting: 0 }`
   * when everything has its outcome. Without a spool it resolves with `undefined`.
   * @example
   * ```ts
   * export async function handler(event) {
   *   analytics.track({ userId: event.user, event: 'Invoked' })
   *   await analytics.flush()
   * }
   * ```
   */
  flush(callback?: Callback): Promise<void> {
    if (callback !== undefined && typeof callback !== 'function') return this.#flushWithOptions(callback)
    return flushClient(this.#ledger, this.#scheduler, this.#pipeline, callback)
  }

  #flushWithOptions(given: unknown): Promise<void> {
    const asked = flushArgumentOf(given)
    return asked instanceof ValidationError ? Promise.reject(asked) : this.closeAndFlush(asked.close)
  }

  /**
   * Stops intake (later messages get a `ClosedError`) and sends everything queued. Resolves when
   * every message has an outcome, or when `timeout` ms have passed (the rest, messages still in
   * an async plugin included, then fail with a `TimeoutError` before it resolves). Rejects like {@link Analytics.flush}. With a `spool`, closing while the service is
   * down resolves with `{ waiting }` once those messages are synced to disk: they stay in the spool
   * for the next client on its directory, and end here with a `ServiceUnavailableError` that says so.
   * @example
   * ```ts
   * process.on('SIGTERM', async () => {
   *   await analytics.closeAndFlush({ timeout: 5000 })
   *   process.exit(0)
   * })
   * ```
   */
  closeAndFlush(options: CloseOptions = {}): Promise<void> {
    const parsed = closeTimeoutOf(options)
    if (parsed instanceof ValidationError) return Promise.reject(parsed)
    return closeClient(this.#ledger, this.#scheduler, this.#pipeline, parsed.timeoutMs)
  }

  /**
   * Listens to what the client does: `error`, `retry`, `drop`, `flush`, `violation`, `breaker`,
   * `replay` (see {@link AnalyticsEvents}). The client writes to the console only the line on
   * stderr when the process exits with messages not yet delivered, and a plan's process warning
   * in `'report'` mode (docs/client.md).
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
    return clientStats(this.#options, this.#ledger, this.#scheduler, this.#pipeline)
  }

  /**
   * Internal, for `importMessages`: queues a line of JSON text already parsed, validated exactly as
   * a call's message and, when its text is already what would be sent, sent as written. The import
   * gives `prepare` (`prepareParsedLine`), so that a client that never imports does not load it.
   * @internal
   */
  [QUEUE_PARSED_LINE](type: MessageType, line: ParsedLine, callback: Callback, prepare: PrepareMessage<ParsedLine>): void {
    if (this.#pipeline !== undefined) this.#pipeline.enqueue(type, line.value, callback, 'import', true)
    else this.#enqueue(type, line, callback, prepare)
  }

  /**
   * Internal, for `importMessages`: the client to import through (see `IMPORT_VIEW`).
   * @internal
   */
  [IMPORT_VIEW](usePlugins: boolean): ImportClient {
    const pipeline = this.#pipeline
    if (pipeline === undefined) return this
    return importThroughPipeline(pipeline, usePlugins, () => this.flush())
  }

  /**
   * Internal, for `eventrail/context`: the source each call asks for the request's context it runs in.
   * @internal
   */
  [AMBIENT_SOURCE](source: AmbientSource): void {
    this.#ambient = source
  }

  #enqueue<T>(type: MessageType, message: T, callback: Callback | undefined, prepare: PrepareMessage<T> = prepareCall): this {
    enqueueCall(this.#ledger, this.#scheduler, this.#pipeline, isoClock, this.#ambient?.(), type, message, callback, prepare)
    return this
  }
}
