import { ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'
import { AMBIENT_SOURCE } from '../core/internal'
import type { AmbientFrame, AmbientSource } from '../client/ambient'
import { ContextFrame, type ContextInput } from './frame'
import { createAsyncStorage, type AsyncStorage } from './storage'
import { TraceFrame, type TraceApi } from './trace'

/** A client a context applies to: an `Analytics` of eventrail. */
export type ContextClient = object

interface ClientState {
  trace: TraceApi | undefined
}

type Store = ReadonlyMap<object, ContextFrame>

// One storage for every client: a store maps each client to its frame in this request.
let storage: AsyncStorage<Store> | undefined
const clients = new WeakMap<object, ClientState>()

function install(analytics: ContextClient, where: string): ClientState {
  let state = clients.get(analytics)
  if (state !== undefined) return state
  const slot = (analytics as { [AMBIENT_SOURCE]?: (source: AmbientSource) => void })[AMBIENT_SOURCE]
  if (typeof slot !== 'function')
    throw new ValidationError('analytics', `must be an Analytics client of eventrail, got ${describeValue(analytics)}`, where)
  const own: ClientState = { trace: undefined }
  slot.call(analytics, () => frameOf(analytics, own))
  clients.set(analytics, own)
  state = own
  return state
}

function frameOf(analytics: object, state: ClientState): AmbientFrame | undefined {
  const frame = storage?.getStore()?.get(analytics)
  return state.trace === undefined ? frame : new TraceFrame(frame, state.trace)
}

/**
 * Runs `fn` inside a context: every message `analytics` makes while `fn` runs, however deep in
 * `await`s, timers, callbacks and streams, gets the context's `userId`, `anonymousId` and
 * `context` fields that it does not set itself (its own fields always win), and the context's
 * consent (stamped; in `'enforce'` mode, a message whose category is not consented is withheld
 * with a `ConsentError`). Inside another context, `input` refines the outer one. Outside any
 * context, messages are unchanged. Returns what `fn` returns.
 * @throws ValidationError when `input` is not valid; EventrailError where the runtime has no
 * `AsyncLocalStorage` (a Cloudflare Worker without `nodejs_compat`).
 * @example
 * ```ts
 * await withContext(analytics, { userId: session.userId, context: { ip: req.socket.remoteAddress } }, async () => {
 *   analytics.track({ event: 'Checkout Started' }) // sent with the session's userId and ip
 * })
 * ```
 */
export function withContext<R>(analytics: ContextClient, input: ContextInput, fn: () => R): R {
  const where = 'withContext'
  install(analytics, where)
  if (typeof fn !== 'function') throw new ValidationError('fn', `must be a function, got ${describeValue(fn)}`, where)
  storage ??= createAsyncStorage<Store>(where)
  const outer = storage.getStore()
  const frame = ContextFrame.of(input, outer?.get(analytics), where)
  const store = new Map(outer)
  store.set(analytics, frame)
  return storage.run(store, fn)
}

/**
 * The context that messages of `analytics` made here would get (ids, context fields, consent),
 * or `undefined` outside any context: for code that needs the request's identity itself.
 * @example
 * ```ts
 * const userId = currentContext(analytics)?.userId
 * ```
 */
export function currentContext(analytics: ContextClient): Readonly<ContextInput> | undefined {
  const frame = storage?.getStore()?.get(analytics)
  if (frame === undefined) return undefined
  const { userId, anonymousId, context, consent } = frame
  return { userId, anonymousId, context, consent }
}

/**
 * Turns on trace stamping for `analytics`: each message gets `context.trace = { traceId, spanId }`
 * of the OpenTelemetry span active when it is made (inside a context or not), so events and traces
 * can be joined. Pass the `@opentelemetry/api` module you use; `undefined` turns it off.
 * @throws ValidationError when `api` has no `trace.getActiveSpan`.
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * stampTraces(analytics, otel)
 * ```
 */
export function stampTraces(analytics: ContextClient, api: TraceApi | undefined): void {
  const state = install(analytics, 'stampTraces')
  if (api !== undefined && typeof (api as Partial<TraceApi>)?.trace?.getActiveSpan !== 'function') {
    throw new ValidationError(
      'api',
      `must be the @opentelemetry/api module (with trace.getActiveSpan), got ${describeValue(api)}`,
      'stampTraces',
    )
  }
  state.trace = api
}
