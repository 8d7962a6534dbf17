import type { AnyEvents, EventCatalog, FetchLike, Message, MessageType, Traits } from '../core/types'
import { bodyText, decodeBody, writeKeyOf } from './decode'
import { ownField } from '../core/own-options'
import { matchesQuery, type MessageQuery } from './query'
import type { WireMessages, WireTrackOf } from './wire'

/** One HTTP request the client made, as it went on the wire. */
export interface RecordedRequest {
  /** The full URL, e.g. `https://api.segment.io/v1/batch`. */
  readonly url: string
  /** The URL's path, e.g. `/v1/batch` or `/v1/alias`. */
  readonly path: string
  readonly method: string
  /** The request headers, as the client set them. */
  readonly headers: Readonly<Record<string, string>>
  /** The write key of the Basic `Authorization` header. */
  readonly writeKey: string | undefined
  /** The JSON text of the body (gunzipped when the client compressed it). */
  readonly body: string
  /** The body's `sentAt`. */
  readonly sentAt: string | undefined
  /** The messages the body carried, in order, parsed from the JSON text. */
  readonly messages: readonly Message[]
  /** The status the recorder answered (see {@link RecorderOptions.respond}); `0` when it failed the request with an `Error`. */
  readonly status: number
}

/**
 * What to answer a request with: an HTTP status, or an `Error` to fail it as a network error would.
 * A function receives the request and its index (from 0, counting since the last `clear()`).
 */
export type RecorderResponse = number | Error | ((request: RecordedRequest, index: number) => number | Error)

/** Options of {@link Recorder}. */
export interface RecorderOptions {
  /**
   * What to answer each request with. A 5xx, a 429 or an `Error` makes the client retry: pass
   * `retryDelay: 0` (or `maxRetries: 0`) to the client so that tests of failures do not wait.
   * @defaultValue 200
   */
  respond?: RecorderResponse
}

/**
 * A fetch that records every request instead of sending it: pass `recorder.fetch` as the client's
 * `fetch` option. Nothing touches the network, and the recorder holds no socket, timer or handle.
 * Works with any test runner (jest, vitest, `node --test`).
 *
 * @typeParam Events - the client's event catalog, so that {@link Recorder.tracks} is typed.
 * @typeParam UserTraits - the type of `identify` traits, for {@link Recorder.ofType}.
 * @typeParam GroupTraits - the type of `group` traits, for {@link Recorder.ofType}.
 * @example
 * ```ts
 * const recorder = new Recorder()
 * const analytics = new Analytics('test-key', { fetch: recorder.fetch })
 * analytics.track({ userId: 'u1', event: 'Signed Up' })
 * await analytics.flush()
 * recorder.tracks('Signed Up') // [{ type: 'track', event: 'Signed Up', userId: 'u1', messageId: … }]
 * ```
 */
export class Recorder<Events extends EventCatalog = AnyEvents, UserTraits extends object = Traits, GroupTraits extends object = Traits> {
  #requests: RecordedRequest[] = []
  #respond: RecorderResponse

  /** @param options - see {@link RecorderOptions}. */
  constructor(options: RecorderOptions = {}) {
    // Own fields only: an inherited `respond` (a polluted Object.prototype) is not the test's.
    this.#respond = ((typeof options === 'object' && options !== null ? ownField(options, 'respond') : undefined) ??
      200) as RecorderResponse
  }

  /**
   * The recording fetch: give it to the client as its `fetch` option. A plain function (no `this`),
   * so it can be passed around on its own.
   */
  readonly fetch: FetchLike = async (url, init) => {
    if (init.signal?.aborted) throw init.signal.reason
    const text = await bodyText(init.body, init.headers)
    const path = new URL(url).pathname
    const { sentAt, messages } = decodeBody(path, text)
    const draft = {
      url,
      path,
      method: init.method,
      headers: { ...init.headers },
      writeKey: writeKeyOf(init.headers),
      body: text,
      sentAt,
      messages,
      status: 0,
    }
    const outcome = this.#answer(draft)
    const status = outcome instanceof Error ? 0 : outcome
    this.#requests.push(Object.freeze({ ...draft, status }))
    if (outcome instanceof Error) throw outcome
    return { status, headers: { get: () => null }, arrayBuffer: () => Promise.resolve(new ArrayBuffer(0)) }
  }

  /** Every request the client made, in order, including failed attempts and retries. */
  get requests(): readonly RecordedRequest[] {
    return [...this.#requests]
  }

  /**
   * Every message the recorder accepted (answered with a 2xx), in the order sent, exactly as it
   * went on the wire: `type`, `messageId`, `timestamp`, `context.library`, ids as strings. A
   * message retried after a failed attempt appears once.
   */
  get messages(): Message[] {
    return this.#requests.filter((r) => r.status >= 200 && r.status < 300).flatMap((r) => r.messages)
  }

  /**
   * The accepted messages of one type.
   * @example
   * ```ts
   * recorder.ofType('identify').map((m) => m.traits)
   * ```
   */
  ofType<T extends MessageType>(type: T): WireMessages<UserTraits, GroupTraits>[T][] {
    return this.messages.filter((m) => m.type === type) as WireMessages<UserTraits, GroupTraits>[T][]
  }

  /**
   * The accepted track messages, all or those of one event. With a typed recorder
   * (`new Recorder<MyEvents>()`), the event name is checked and `properties` are typed.
   * @example
   * ```ts
   * const [order] = recorder.tracks('Order Completed')
   * expect(order.properties?.total).toBe(42)
   * ```
   */
  tracks<K extends keyof Events & string>(event?: K): WireTrackOf<Events, K>[] {
    return this.messages.filter((m) => m.type === 'track' && (event === undefined || m.event === event)) as WireTrackOf<Events, K>[]
  }

  /**
   * The accepted messages that match a filter (every field given must match) or a predicate.
   * @example
   * ```ts
   * recorder.find({ type: 'track', userId: 'u1' })
   * recorder.find((m) => m.context.ip === '203.0.113.9')
   * ```
   */
  find(query: MessageQuery): Message[] {
    return this.messages.filter((m) => matchesQuery(m, query))
  }

  /**
   * The most recent accepted message, or the most recent one that matches `query`; `undefined` when none does.
   * @example
   * ```ts
   * recorder.last({ type: 'identify' })?.traits
   * ```
   */
  last(query?: MessageQuery): Message | undefined {
    const messages = query === undefined ? this.messages : this.find(query)
    return messages[messages.length - 1]
  }

  /**
   * Forgets every recorded request and message, for a `beforeEach`.
   * @example
   * ```ts
   * beforeEach(() => recorder.clear())
   * ```
   */
  clear(): void {
    this.#requests = []
  }

  /**
   * Changes what the following requests are answered with.
   * @example
   * ```ts
   * recorder.respondWith(503) // the service is down from now on
   * ```
   */
  respondWith(response: RecorderResponse): void {
    this.#respond = response
  }

  #answer(request: RecordedRequest): number | Error {
    const respond = this.#respond
    return typeof respond === 'function' ? respond(request, this.#requests.length) : respond
  }
}
