import type * as Http from 'node:http'
import type * as Https from 'node:https'
import { createNodeHttpFetch } from './node-http-fetch'
import { base64Utf8, canGzip, loadNodeBuiltin, runtimeDescription } from './runtime'
import { LIBRARY_NAME, VERSION } from '../core/version'
import { bodyExcerpt, drainResponseBody, type DrainableResponse } from './response-body'
import { socketGateFor, type Release, type SocketGate } from './socket-gate'
import type { FetchLike } from '../core/types'

/** What one HTTP attempt came to: the status, and the `Retry-After` and `Location` headers, if any. */
export interface TransportResponse {
  readonly status: number
  readonly retryAfter: string | null
  /** Where a redirect (3xx) pointed; it is never followed. */
  readonly location?: string | null
  /** The beginning of an error's body (4xx, 5xx), quoted, as one line: for the error message. */
  readonly body?: string | undefined
}

/** A request body: JSON text, or that text already in UTF-8 bytes (over an `ArrayBuffer`, as `fetch` takes them). */
export type RequestBody = string | Uint8Array<ArrayBuffer>

/** Sends request bodies. Knows HTTP, not batching; rejects only for network errors and aborts. */
export interface Transport {
  /**
   * Whether a body may be given as bytes: not when the caller's own `fetch` sends, which gets text
   * as it always has (a test's fake fetch may read it as a string).
   */
  readonly acceptsBytes: boolean
  /**
   * Waits for a socket of the process-wide pool (the default transport only): an attempt takes
   * one before its timeout starts, and releases it when it ends.
   */
  readonly acquire?: (signal: AbortSignal) => Promise<Release>
  /** POSTs one JSON body to `path` (e.g. `/v1/batch`) under the host. */
  send(path: string, body: RequestBody, signal: AbortSignal): Promise<TransportResponse>
}

/** What the HTTP transport needs to know. */
export interface TransportOptions {
  readonly writeKey: string
  readonly host: string
  readonly fetch: FetchLike | undefined
  readonly compress: boolean
  /** Longest time a response body is read, ms (the request timeout; default 10 s). */
  readonly timeoutMs?: number
}

// Free sockets close after this long idle: a little under Node's own 5 s server keep-alive, so a
// reused socket is not one the server is closing, and an idle client soon holds no socket.
const FREE_SOCKET_TIMEOUT_MS = 4_000
const MAX_SOCKETS_PER_HOST = 64
const DEFAULT_BODY_TIMEOUT_MS = 10_000
const ERROR_BODY_WAIT_MS = 1_000
const ERROR_BODY_KEEP_BYTES = 1_024

let defaultFetch: Promise<FetchLike> | undefined

// In Node, node:http or node:https (createNodeHttpFetch); elsewhere (Bun, Deno, Workers, the Edge
// Runtime) the runtime's own fetch. node:http or node:https is loaded on the first send to such a
// host, not at import, and never when a `fetch` option is given; and after an `await`, so never
// inside the caller's call. Neither is named where a bundler can see it. The keep-alive agents,
// one per protocol, are shared by every instance in the process.
function loadDefaultFetch(): Promise<FetchLike> {
  defaultFetch ??= loadNodeFetch().then((nodeFetch) => nodeFetch ?? globalFetch)
  return defaultFetch
}

/**
 * Loads the default fetch now rather than on the first send: for `eventrail import`, whose run (and
 * rate) starts once the client can send. Never rejects.
 * @internal
 */
export function preloadDefaultFetch(): Promise<void> {
  return loadDefaultFetch().then(
    () => undefined,
    () => undefined,
  )
}

function loadNodeFetch(): Promise<FetchLike | undefined> {
  if (!runtimeDescription().startsWith('node ')) return Promise.resolve(undefined)
  const pool = { maxSockets: MAX_SOCKETS_PER_HOST, freeSocketTimeoutMs: FREE_SOCKET_TIMEOUT_MS }
  return Promise.resolve(createNodeHttpFetch((id) => loadNodeBuiltin<typeof Http | typeof Https>(id), pool))
}

// The host's fetch, called as a plain function: workerd refuses a `this` other than the global.
const globalFetch: FetchLike = (url, init) => {
  const send = globalThis.fetch as unknown as FetchLike
  return send(url, init)
}

/** The `Authorization` header value: Basic auth with the write key as user name and an empty password. */
export function basicAuthorization(writeKey: string): string {
  return 'Basic ' + base64Utf8(writeKey + ':')
}

/**
 * The transport over fetch: Basic auth, JSON, a `User-Agent`, optional gzip, keep-alive. With
 * `compress` where the host has no gzip (Vercel's Edge Runtime), bodies go uncompressed and
 * without `Content-Encoding`.
 */
export function createHttpTransport(options: TransportOptions): Transport {
  const gzip = options.compress && canGzip()
  const headers: Record<string, string> = {
    Authorization: basicAuthorization(options.writeKey),
    'Content-Type': 'application/json',
    'User-Agent': `${LIBRARY_NAME}/${VERSION} (${runtimeDescription()})`,
  }
  if (gzip) headers['Content-Encoding'] = 'gzip'
  // A plain function, never called as `options.fetch(...)`: workerd's fetch throws "Illegal
  // invocation" when its `this` is the options object.
  const userFetch = options.fetch
  let gate: SocketGate | undefined
  const owner = {}
  return {
    acceptsBytes: userFetch === undefined,
    // The default fetch's keep-alive pool has MAX_SOCKETS_PER_HOST sockets per origin for every
    // instance of the process: the gate hands them out, fairly, before any timeout runs.
    acquire:
      userFetch === undefined
        ? (signal) => (gate ??= socketGateFor(new URL(options.host).origin, MAX_SOCKETS_PER_HOST)).acquire(owner, signal)
        : undefined,
    async send(path, body, signal) {
      // gzip.ts is loaded on the first compressed send: `compress` is off by default.
      const payload = gzip ? await import('./gzip').then((module) => module.gzipText(body)) : body
      const send = userFetch ?? (await loadDefaultFetch())
      // The transport's own signal, which follows the caller's: it can also end the connection
      // after the answer has arrived, when its body is too long or too slow.
      const controller = new AbortController()
      const follow = (): void => controller.abort(signal.reason)
      if (signal.aborted) follow()
      else signal.addEventListener('abort', follow, { once: true })
      let response
      try {
        // Never follow a redirect: it would carry the write key and the batch to another origin,
        // or (301/302/303) become a GET without the body (docs/decisions.md, "Redirects").
        response = await send(options.host + path, {
          method: 'POST',
          headers,
          body: payload,
          signal: controller.signal,
          redirect: 'manual',
        })
      } catch (err) {
        signal.removeEventListener('abort', follow)
        throw err
      }
      const status = response.status
      const isError = status >= 400
      const answer: { status: number; retryAfter: string | null; location: string | null; body?: string } = {
        status,
        retryAfter: response.headers.get('retry-after'),
        location: status >= 300 && status <= 399 ? response.headers.get('location') : null,
      }
      // The status is the answer. The body is read only so that the socket goes back to the pool,
      // in the background (a slow body must not turn a 200 into a timeout and a retry), at most
      // 64 KB and for at most the request timeout; then the connection is closed. An error's body
      // is read first, for at most a second, and its beginning goes in the error message (a
      // service, and our collector, say there what was wrong).
      const drained = drainResponseBody(
        response as DrainableResponse,
        isError
          ? Math.min(ERROR_BODY_WAIT_MS, options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS)
          : (options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
        () => controller.abort(new Error('response body too long or too slow')),
        isError ? ERROR_BODY_KEEP_BYTES : 0,
      ).then((kept) => {
        signal.removeEventListener('abort', follow)
        return kept
      })
      if (isError) answer.body = bodyExcerpt(await drained)
      return answer
    },
  }
}
