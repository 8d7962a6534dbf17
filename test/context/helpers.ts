import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeAjsId } from 'eventrail/context'

/** A GET to `url` with `headers`: the status, the body and the Set-Cookie headers of the answer. */
export function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cookies: res.headers['set-cookie'] ?? [] }))
      })
      .on('error', reject)
  })
}

/** Listens on 127.0.0.1, port 0: the base URL. */
export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

export function close(server: http.Server | undefined): Promise<void> {
  return new Promise((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
}

/** The headers of a browser's request behind one proxy, with analytics.js's cookies. */
export const BROWSER_HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5',
  referer: 'https://shop.example.com/cart',
  'x-forwarded-for': '203.0.113.7, 10.0.0.2',
  cookie: 'theme=dark; ajs_anonymous_id=%22anon-123%22; ajs_user_id=user-42',
}

/** The id a Set-Cookie gives `ajs_anonymous_id`, read as analytics.js reads it. */
export function anonymousIdOf(setCookie: string): string | undefined {
  const match = /^ajs_anonymous_id=([^;]*)/.exec(setCookie)
  return match === null ? undefined : decodeAjsId(match[1])
}
