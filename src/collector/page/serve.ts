import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EventStreams } from '../event-streams'
import type { RecordStore } from '../store'
import { PAGE_SECURITY_HEADERS, publicRecord, refuse, type PageGuard } from './guard'
import { PAGE_HTML } from './html'
import { PAGE_SCRIPT } from './script'
import { PAGE_STYLE } from './style'

const ASSETS: ReadonlyMap<string, readonly [contentType: string, body: string]> = new Map([
  ['/', ['text/html; charset=utf-8', PAGE_HTML]],
  ['/index.html', ['text/html; charset=utf-8', PAGE_HTML]],
  ['/debugger.css', ['text/css; charset=utf-8', PAGE_STYLE]],
  ['/debugger.js', ['text/javascript; charset=utf-8', PAGE_SCRIPT]],
])

/**
 * The debugger's own routes: the page and its two assets, `GET /events` (the live feed),
 * `GET /api/messages` (the records as JSON) and `POST /api/clear`.
 */
export function servePage(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  store: RecordStore,
  streams: EventStreams,
  guard: PageGuard,
): void {
  req.resume()
  // DNS rebinding: a page on a name rebound to 127.0.0.1 sends its own name as Host.
  if (!guard.isOwnHost(req))
    return refuse(res, 'the Host header does not name this collector (127.0.0.1, localhost or [::1], with its port)')
  const asset = ASSETS.get(path)
  if (asset !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
    const [contentType, body] = asset
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...PAGE_SECURITY_HEADERS,
    })
    res.end(req.method === 'HEAD' ? undefined : body)
  } else if (path === '/events' && req.method === 'GET') {
    streams.open(res)
  } else if (path === '/api/messages' && req.method === 'GET') {
    send(
      res,
      200,
      'application/json; charset=utf-8',
      JSON.stringify({ messages: store.messages.map(publicRecord), requests: store.requests }),
    )
  } else if (path === '/api/clear' && req.method === 'POST') {
    // CSRF: any page can send a simple POST; only the debugger page itself may clear.
    if (!guard.isSameOrigin(req)) return refuse(res, 'clearing is allowed from the debugger page only (same origin)')
    store.clear()
    res.writeHead(204, PAGE_SECURITY_HEADERS).end()
  } else {
    send(res, 404, 'text/plain; charset=utf-8', `Not found: ${req.method} ${path}\n`)
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...PAGE_SECURITY_HEADERS,
  })
  res.end(body)
}
