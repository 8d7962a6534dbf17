import type { IncomingMessage } from 'node:http'
import { createGunzip, type Gunzip } from 'node:zlib'

/** What reading a request body came to. */
export type BodyResult =
  /** The whole body, decompressed, within the limit. */
  | { readonly kind: 'ok'; readonly text: string; readonly wireBytes: number }
  /** The body breaks a rule (too large, bad gzip, unknown encoding): answer 400 with `error`. */
  | { readonly kind: 'refused'; readonly error: string; readonly wireBytes: number }
  /** The client went away before the body ended: nobody to answer. */
  | { readonly kind: 'aborted'; readonly wireBytes: number }

// After refusing a body, the rest is read and discarded so that the client, still sending, gets
// its 400 instead of a reset connection; past this many bytes the connection is cut instead.
const MAX_DISCARD_BYTES = 8 * 1024 * 1024

/**
 * Reads a request body of at most `limitBytes`, as sent and, for `Content-Encoding: gzip`, once
 * decompressed. A body over the limit is refused as soon as that is known (from `Content-Length`,
 * or when the count passes the limit) and never held whole in memory: what follows is discarded.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<BodyResult> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    return Promise.resolve(refuseEarly(req, `Content-Encoding "${encoding}" is not supported: send gzip or no encoding`))
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limitBytes) {
    return Promise.resolve(refuseEarly(req, tooLarge(declared, limitBytes, 'Content-Length')))
  }
  return new Promise((resolve) => collect(req, encoding === 'identity' ? undefined : createGunzip(), limitBytes, resolve))
}

function collect(req: IncomingMessage, gunzip: Gunzip | undefined, limitBytes: number, resolve: (result: BodyResult) => void): void {
  const chunks: Buffer[] = []
  let wireBytes = 0
  let bodyBytes = 0
  let settled = false
  const settle = (result: BodyResult): void => {
    if (settled) return
    settled = true
    chunks.length = 0
    resolve(result)
  }
  const refuse = (error: string): void => {
    if (gunzip !== undefined) {
      req.unpipe(gunzip)
      gunzip.destroy()
    }
    req.resume()
    settle({ kind: 'refused', error, wireBytes })
  }
  const onBody = (chunk: Buffer): void => {
    if (settled) return
    bodyBytes += chunk.length
    if (bodyBytes > limitBytes) refuse(tooLarge(bodyBytes, limitBytes, gunzip ? 'decompressed body' : 'body'))
    else chunks.push(chunk)
  }
  const onEnd = (): void => settle({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8'), wireBytes })

  req.on('data', (chunk: Buffer) => {
    wireBytes += chunk.length
    if (!settled && wireBytes > limitBytes) refuse(tooLarge(wireBytes, limitBytes, 'body'))
    if (wireBytes > limitBytes + MAX_DISCARD_BYTES) req.socket.destroy()
  })
  req.on('error', () => settle({ kind: 'aborted', wireBytes }))
  req.on('close', () => {
    if (!req.complete) settle({ kind: 'aborted', wireBytes })
  })
  if (gunzip === undefined) {
    req.on('data', onBody)
    req.on('end', onEnd)
    return
  }
  gunzip.on('data', onBody)
  gunzip.on('end', onEnd)
  gunzip.on('error', () => refuse('the body is not valid gzip although Content-Encoding says gzip'))
  req.pipe(gunzip)
}

function refuseEarly(req: IncomingMessage, error: string): BodyResult {
  // Discard what the client still sends (without keeping it) so that it reads the 400.
  let wireBytes = 0
  req.on('data', (chunk: Buffer) => {
    wireBytes += chunk.length
    if (wireBytes > MAX_DISCARD_BYTES) req.socket.destroy()
  })
  req.on('error', () => undefined)
  req.resume()
  return { kind: 'refused', error, wireBytes: 0 }
}

function tooLarge(bytes: number, limitBytes: number, what: string): string {
  return `${what} is ${bytes} bytes${what === 'Content-Length' ? '' : ' or more'}, over the limit of ${limitBytes} bytes (${limitBytes / 1024} KB)`
}
