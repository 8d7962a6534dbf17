import type { Agent } from 'node:http'
import { LIBRARY_NAME, VERSION } from '../version'
import { drainResponseBody, type DrainableResponse } from './response-body'
import type { FetchLike } from '../types'

/** What one HTTP attempt came to: the status and the `Retry-After` header, if any. */
export interface TransportResponse {
  readonly status: number
  readonly retryAfter: string | null
}

/** Sends request bodies. Knows HTTP, not batching; rejects only for network errors and aborts. */
export interface Transport {
  /** POSTs one JSON body to `path` (e.g. `/v1/batch`) under the host. */
  send(path: string, body: string, signal: AbortSignal): Promise<TransportResponse>
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

interface DefaultFetch {
  readonly fetch: FetchLike
  readonly agentFor: (url: URL) => Agent
}

let defaultFetch: Promise<DefaultFetch> | undefined

// node-fetch and its closure cost ~14 ms to load, node:http and node:https ~12 ms more: all are
// loaded on the first send, not at import, and never when a `fetch` option is given. The
// keep-alive agents, one per protocol, are shared by every instance in the process.
function loadDefaultFetch(): Promise<DefaultFetch> {
  defaultFetch ??= Promise.all([import('node-fetch'), import('node:http'), import('node:https')]).then(([nodeFetch, http, https]) => {
    const options = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, timeout: FREE_SOCKET_TIMEOUT_MS }
    const httpAgent = new http.Agent(options)
    const httpsAgent = new https.Agent(options)
    return {
      fetch: nodeFetch.default as unknown as FetchLike,
      agentFor: (url: URL) => (url.protocol === 'http:' ? httpAgent : httpsAgent),
    }
  })
  return defaultFetch
}

async function gzipBody(body: string): Promise<Buffer> {
  const { gzip } = await import('node:zlib')
  return new Promise((resolve, reject) => gzip(body, (err, result) => (err ? reject(err) : resolve(result))))
}

/** The `Authorization` header value: Basic auth with the write key as user name and an empty password. */
export function basicAuthorization(writeKey: string): string {
  return 'Basic ' + Buffer.from(writeKey + ':', 'utf8').toString('base64')
}

/** The transport over fetch: Basic auth, JSON, a `User-Agent`, optional gzip, keep-alive. */
export function createHttpTransport(options: TransportOptions): Transport {
  const headers: Record<string, string> = {
    Authorization: basicAuthorization(options.writeKey),
    'Content-Type': 'application/json',
    'User-Agent': `${LIBRARY_NAME}/${VERSION} (node ${process.version})`,
  }
  if (options.compress) headers['Content-Encoding'] = 'gzip'
  return {
    async send(path, body, signal) {
      const payload = options.compress ? await gzipBody(body) : body
      // The transport's own signal, which follows the caller's: it can also end the connection
      // after the answer has arrived, when its body is too long or too slow.
      const controller = new AbortController()
      const follow = (): void => controller.abort(signal.reason)
      if (signal.aborted) follow()
      else signal.addEventListener('abort', follow, { once: true })
      const init = { method: 'POST', headers, body: payload, signal: controller.signal }
      let response
      try {
        if (options.fetch) response = await options.fetch(options.host + path, init)
        else {
          const { fetch, agentFor } = await loadDefaultFetch()
          response = await fetch(options.host + path, { ...init, agent: agentFor })
        }
      } catch (err) {
        signal.removeEventListener('abort', follow)
        throw err
      }
      const answer = { status: response.status, retryAfter: response.headers.get('retry-after') }
      // The status is the answer. The body is read only so that the socket goes back to the pool,
      // in the background (a slow body must not turn a 200 into a timeout and a retry), at most
      // 64 KB and for at most the request timeout; then the connection is closed.
      void drainResponseBody(response as DrainableResponse, options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, () =>
        controller.abort(new Error('response body too long or too slow')),
      ).then(() => signal.removeEventListener('abort', follow))
      return answer
    },
  }
}
