import * as http from 'node:http'
import * as https from 'node:https'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { LIBRARY_NAME, VERSION } from '../version'
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
}

const gzipAsync = promisify(gzip)

// Free sockets close after this long idle: a little under Node's own 5 s server keep-alive, so a
// reused socket is not one the server is closing, and an idle client soon holds no socket.
const FREE_SOCKET_TIMEOUT_MS = 4_000
const MAX_SOCKETS_PER_HOST = 64

let agents: { http: http.Agent; https: https.Agent } | undefined
let nodeFetch: Promise<FetchLike> | undefined

/** The process-wide keep-alive agents that node-fetch uses, one per protocol, made on first use. */
function agentFor(url: URL): http.Agent {
  agents ??= {
    http: new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, timeout: FREE_SOCKET_TIMEOUT_MS }),
    https: new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, timeout: FREE_SOCKET_TIMEOUT_MS }),
  }
  return url.protocol === 'http:' ? agents.http : agents.https
}

// node-fetch and its closure cost ~14 ms to load: only on the first send, never when `fetch` is given.
function loadNodeFetch(): Promise<FetchLike> {
  nodeFetch ??= import('node-fetch').then((mod) => mod.default as unknown as FetchLike)
  return nodeFetch
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
      const fetch = options.fetch ?? (await loadNodeFetch())
      const payload = options.compress ? await gzipAsync(body) : body
      const response = await fetch(options.host + path, {
        method: 'POST',
        headers,
        body: payload,
        signal,
        ...(options.fetch ? {} : { agent: agentFor }),
      })
      // Read the body to the end so that the socket goes back to the pool.
      await response.arrayBuffer().catch(() => undefined)
      return { status: response.status, retryAfter: response.headers.get('retry-after') }
    },
  }
}
