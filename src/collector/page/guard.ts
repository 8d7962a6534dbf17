import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'

/**
 * What a web page next to the collector must not be able to do: read the debugger's data through
 * a name rebound to 127.0.0.1 (DNS rebinding), clear it from another origin (CSRF), or frame it.
 */
export interface PageGuard {
  /** Whether `Host` names the collector itself: 127.0.0.1, localhost, [::1] or its own host, with its port. */
  isOwnHost(req: IncomingMessage): boolean
  /** Whether a state-changing call comes from the debugger page itself (or from no browser at all). */
  isSameOrigin(req: IncomingMessage): boolean
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

/** The guard of a collector bound to `host` and listening on `port`. */
export function createPageGuard(host: string, port: number): PageGuard {
  const names = new Set(LOOPBACK_NAMES)
  if (host !== '0.0.0.0' && host !== '::') names.add((host.includes(':') ? `[${host}]` : host).toLowerCase())
  const allowed = new Set([...names].map((name) => `${name}:${port}`))
  const isOwn = (value: string | undefined): boolean => value !== undefined && allowed.has(value.toLowerCase())
  return {
    isOwnHost: (req) => isOwn(req.headers.host),
    isSameOrigin(req) {
      const site = req.headers['sec-fetch-site']
      if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
      const origin = req.headers.origin
      if (origin === undefined) return true // not a browser's cross-site request: browsers send Origin on POST
      try {
        const url = new URL(origin)
        return url.protocol === 'http:' && isOwn(url.host)
      } catch {
        return false
      }
    },
  }
}

/** Headers of every page, feed and API answer: no framing, no sniffing, scripts and styles from the collector only. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
})

/** Answers a request the guard refused: 403, with why, and nothing of the collector's data. */
export function refuse(res: ServerResponse, why: string): void {
  const body = `Forbidden: ${why}\n`
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), ...PAGE_SECURITY_HEADERS })
  res.end(body)
}

/**
 * The request headers as a record keeps them: without credentials. `Authorization` becomes the
 * scheme and the first characters of the Basic user name (the write key), masked; cookies and
 * proxy credentials are dropped.
 */
export function recordHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = { ...headers }
  delete kept.cookie
  delete kept['proxy-authorization']
  if (kept.authorization !== undefined) kept.authorization = maskAuthorization(kept.authorization)
  return kept
}

function maskAuthorization(value: string): string {
  const match = /^Basic\s+(\S+)$/i.exec(value.trim())
  if (match === null) return '(not Basic: not kept)'
  let user: string
  try {
    user = Buffer.from(match[1], 'base64').toString('utf8').split(':', 1)[0]
  } catch {
    return 'Basic (unreadable: not kept)'
  }
  return `Basic ${maskWriteKey(user)} (write key masked)`
}

/** A write key as the collector shows it: its first characters (at most 4, at most half), masked. */
export function maskWriteKey(writeKey: string): string {
  return `${writeKey.slice(0, Math.min(4, Math.floor(writeKey.length / 2)))}…`
}

/** A message record as it leaves the process (the API, the live feed, `--out`): its write key masked. */
export function publicRecord<T extends { readonly writeKey: string | null }>(record: T): T {
  return record.writeKey === null ? record : { ...record, writeKey: maskWriteKey(record.writeKey) }
}
