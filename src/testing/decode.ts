import { gunzipBytes } from '../platform/gzip'
import type { Message } from '../core/types'

/** What a request body held: its JSON text, `sentAt`, and the messages it carried in order. */
export interface DecodedBody {
  readonly text: string
  readonly sentAt: string | undefined
  readonly messages: Message[]
}

/**
 * The body as text: gunzipped when the client compressed it (with `node:zlib` where the runtime
 * has it, else `DecompressionStream`), UTF-8 decoded when it is bytes.
 */
export async function bodyText(body: string | Uint8Array, headers: Readonly<Record<string, string>>): Promise<string> {
  if (typeof body === 'string') return body
  const bytes = headerValue(headers, 'content-encoding') === 'gzip' ? await gunzipBytes(body) : body
  return new TextDecoder().decode(bytes)
}

/**
 * Reads a request body of the wire interface: `/v1/batch` carries `{ batch: [...], sentAt }`;
 * every other endpoint carries one message with `sentAt` in it.
 * @throws SyntaxError when the body is not JSON (the client never sends such a body).
 */
export function decodeBody(path: string, text: string): DecodedBody {
  const json = JSON.parse(text) as Record<string, unknown>
  const sentAt = typeof json.sentAt === 'string' ? json.sentAt : undefined
  if (path.endsWith('/v1/batch') && Array.isArray(json.batch)) {
    return { text, sentAt, messages: json.batch as Message[] }
  }
  return { text, sentAt, messages: [json as unknown as Message] }
}

/** The write key of a Basic `Authorization` header (the user name; the password is empty). */
export function writeKeyOf(headers: Readonly<Record<string, string>>): string | undefined {
  const value = headerValue(headers, 'authorization')
  if (value === undefined || !value.startsWith('Basic ')) return undefined
  const decoded = new TextDecoder().decode(Uint8Array.from(atob(value.slice(6)), (c) => c.charCodeAt(0)))
  const colon = decoded.indexOf(':')
  return colon === -1 ? decoded : decoded.slice(0, colon)
}

/** A header's value, whatever the case of its name. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headers[key]
  }
  return undefined
}
