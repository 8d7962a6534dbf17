import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { EventrailError } from '../core/errors'
import { EventStreams } from './event-streams'
import { ENDPOINTS, ingest, reply } from './ingest'
import { JsonLinesWriter } from './jsonl'
import { normalizeCollectorOptions, type ResolvedCollectorOptions } from './options'
import { createPageGuard, recordHeaders, type PageGuard } from './page/guard'
import { servePage } from './page/serve'
import { RecordStore } from './store'
import { isStrayPost, unknownPathError } from './unknown-path'
import type { Collector, CollectorEvents, CollectorOptions } from './types'
import { MessageWaiter } from './wait'

/**
 * Starts a local collector: the wire interface (`POST /v1/identify`, `/track`, `/page`, `/screen`,
 * `/group`, `/alias`, `/batch`) on a real `node:http` server, judging every message like the
 * service's source debugger, with a live debugger page at `/`. For development and tests, not
 * for production.
 *
 * @throws ValidationError when an option is invalid; EventrailError when the port is taken or the
 * `out` file cannot be opened.
 * @example
 * ```ts
 * import { Analytics } from 'eventrail'
 * import { createCollector } from 'eventrail/collector'
 *
 * const collector = await createCollector({ writeKeys: ['dev'], destinations: ['Amplitude'] })
 * const analytics = new Analytics('dev', { host: collector.url })
 * analytics.track({ userId: 'u1', event: 'Signed Up' })
 * await analytics.flush()
 * console.log(collector.messages[0].verdict) // 'accepted'
 * await collector.close()
 * ```
 */
export async function createCollector(options?: CollectorOptions): Promise<Collector> {
  const resolved = normalizeCollectorOptions(options)
  const failures: { store?: RecordStore } = {}
  const writer = resolved.out === undefined ? undefined : await openOut(resolved.out, (err) => failures.store?.addError(err))
  const store = new RecordStore(resolved.maxMessages, resolved.maxRequests, writer, resolved.maxMessageBytes)
  failures.store = store
  const streams = new EventStreams(store)
  const waiter = new MessageWaiter(store)
  // Known once the server listens (its port may be 0 until then); requests come only after.
  const guarded: { guard?: PageGuard } = {}
  const server = createServer((req, res) => {
    route(req, res, store, streams, resolved, guarded.guard as PageGuard).catch(() => {
      if (!res.headersSent) reply(res, 500, { success: false, error: 'the collector failed to handle this request' })
      else res.destroy()
    })
  })
  try {
    await listen(server, resolved)
  } catch (err) {
    await writer?.close().catch(() => undefined)
    throw err
  }
  const { port } = server.address() as AddressInfo
  guarded.guard = createPageGuard(resolved.host, port)
  let closing: Promise<void> | undefined

  const collector: Collector = {
    url: `http://${resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host}:${port}`,
    port,
    messages: store.messages,
    requests: store.requests,
    on<K extends keyof CollectorEvents>(event: K, listener: (record: CollectorEvents[K]) => void) {
      store.on(event, listener)
      return collector
    },
    off<K extends keyof CollectorEvents>(event: K, listener: (record: CollectorEvents[K]) => void) {
      store.off(event, listener)
      return collector
    },
    clear: () => store.clear(),
    stats: () => ({ ...store.counts, ...(store.out === undefined ? {} : { out: store.out }) }),
    waitForMessages: (count, waitOptions) => waiter.wait(count, waitOptions),
    close: () => {
      waiter.cancelAll()
      return (closing ??= shutDown(server, streams, writer))
    },
  }
  return collector
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  store: RecordStore,
  streams: EventStreams,
  options: ResolvedCollectorOptions,
  guard: PageGuard,
): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0]
  if (!path.startsWith('/v1/') && !isStrayPost(req.method, path)) return servePage(req, res, path, store, streams, guard)
  const endpoint = ENDPOINTS.get(path)
  if (endpoint !== undefined && req.method === 'POST') return ingest(req, res, path, endpoint, store, options)
  if (req.method === 'OPTIONS') return preflight(res)
  const [status, error] =
    endpoint === undefined ? [404, unknownPathError(path, req.headers.host)] : [405, `${path} takes POST only (got ${req.method})`]
  store.addRequest({
    id: store.nextRequestId(),
    receivedAt: new Date().toISOString(),
    method: req.method ?? '',
    path,
    status,
    bytes: 0,
    headers: recordHeaders(req.headers),
    error,
    messages: 0,
  })
  if (status === 405) res.setHeader('allow', 'POST, OPTIONS')
  req.resume()
  reply(res, status, { success: false, error })
}

// Browsers send a CORS preflight before a cross-origin POST with Basic auth.
function preflight(res: ServerResponse): void {
  res.writeHead(204, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'Authorization, Content-Type, Content-Encoding',
    'access-control-max-age': '600',
  })
  res.end()
}

async function openOut(path: string, onFailure: (err: Error) => void): Promise<JsonLinesWriter> {
  try {
    return await JsonLinesWriter.open(path, onFailure)
  } catch (err) {
    throw new EventrailError(`createCollector: "out" cannot be opened for appending: ${path} (${(err as Error).message})`, { cause: err })
  }
}

function listen(server: Server, options: ResolvedCollectorOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${options.host}:${options.port}`
      const text =
        err.code === 'EADDRINUSE'
          ? `port ${options.port} on ${options.host} is already in use: choose another port (0 picks a free one)`
          : `cannot listen on ${where} (${err.message})`
      reject(new EventrailError(`createCollector: ${text}`, { cause: err }))
    })
    server.listen(options.port, options.host, () => resolve())
  })
}

async function shutDown(server: Server, streams: EventStreams, writer: JsonLinesWriter | undefined): Promise<void> {
  streams.closeAll()
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeAllConnections()
  await closed
  await writer?.close()
}
