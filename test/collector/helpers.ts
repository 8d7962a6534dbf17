import * as http from 'node:http'
import { gzipSync } from 'node:zlib'

/** The `Authorization` header of the wire spec: Basic auth, write key as user name, empty password. */
export function basic(writeKey: string): string {
  return 'Basic ' + Buffer.from(`${writeKey}:`).toString('base64')
}

/** How to send one request to the collector. */
export interface PostOptions {
  writeKey?: string | null
  contentType?: string | null
  gzip?: boolean
  headers?: Record<string, string>
}

/** POSTs `body` (an object, sent as JSON, or raw text) with plain `fetch`; resolves with status and JSON answer. */
export async function post(
  baseUrl: string,
  path: string,
  body: unknown,
  options: PostOptions = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers }
  const writeKey = options.writeKey === undefined ? 'test-key' : options.writeKey
  if (writeKey !== null) headers.authorization = basic(writeKey)
  const contentType = options.contentType === undefined ? 'application/json' : options.contentType
  if (contentType !== null) headers['content-type'] = contentType
  let payload: string | Buffer = typeof body === 'string' ? body : JSON.stringify(body)
  if (options.gzip) {
    payload = gzipSync(payload)
    headers['content-encoding'] = 'gzip'
  }
  const response = await fetch(baseUrl + path, { method: 'POST', headers, body: payload })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
}

/**
 * Sends the headers of a request and then body chunks (chunked encoding unless `contentLength`
 * is given) until the server answers or `maxBytes` are written. Resolves with the status and how
 * many body bytes were written before the answer came.
 */
export function postStreaming(
  baseUrl: string,
  path: string,
  options: { chunk: Buffer; maxBytes: number; contentLength?: number; headers?: Record<string, string> },
): Promise<{ status: number; bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    let bytesWritten = 0
    let answered = false
    const headers: Record<string, string | number> = {
      authorization: basic('test-key'),
      'content-type': 'application/json',
      ...options.headers,
    }
    if (options.contentLength !== undefined) headers['content-length'] = options.contentLength
    const req = http.request(baseUrl + path, { method: 'POST', headers, agent: false }, (res) => {
      answered = true
      res.resume()
      res.on('end', () => {
        req.destroy()
        resolve({ status: res.statusCode ?? 0, bytesWritten })
      })
    })
    req.on('error', (err) => {
      if (!answered) reject(err)
    })
    const pump = (): void => {
      while (!answered && bytesWritten < options.maxBytes) {
        bytesWritten += options.chunk.length
        if (!req.write(options.chunk)) {
          req.once('drain', pump)
          return
        }
      }
      if (!answered) req.end()
    }
    req.flushHeaders()
    pump()
  })
}

/** Reads server-sent events from `url` until `until` returns true for the events so far. */
export function readEvents(
  url: string,
  until: (events: Array<{ event: string; data: any }>) => boolean,
): Promise<Array<{ event: string; data: any }>> {
  return new Promise((resolve, reject) => {
    const events: Array<{ event: string; data: any }> = []
    const req = http.get(url, { agent: false }, (res) => {
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        buffer += text
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(frame)?.[1]
          const data = /^data: (.*)$/m.exec(frame)?.[1]
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) })
        }
        if (until(events)) {
          req.destroy()
          resolve(events)
        }
      })
    })
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err)
    })
  })
}
