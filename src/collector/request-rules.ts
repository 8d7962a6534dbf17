import { maskWriteKey } from './page/guard'
import type { Drop } from './verdict'

/** The write key a request authenticates with, and the drop that applies to all its messages, if any. */
export interface Credentials {
  /** The Basic auth user name, or `null` when the request has none. */
  readonly writeKey: string | null
  readonly drop?: Drop
}

const BASIC = /^basic\s+(\S+)\s*$/i

/**
 * Reads the write key from an `Authorization` header (wire spec: Basic auth, the write key as user
 * name, an empty password) and checks it against the known keys (`undefined`: any non-empty key).
 */
export function checkWriteKey(authorization: string | undefined, writeKeys: ReadonlySet<string> | undefined): Credentials {
  const writeKey = basicUserName(authorization)
  if (writeKey === null) {
    const got = authorization === undefined ? 'no Authorization header' : 'an Authorization header that is not Basic auth'
    return {
      writeKey,
      drop: {
        code: 'missing_write_key',
        reason: `missing write key: requests need Basic auth with the write key as user name and an empty password (got ${got})`,
      },
    }
  }
  if (writeKeys !== undefined && !writeKeys.has(writeKey)) {
    return {
      writeKey,
      drop: {
        code: 'unknown_write_key',
        reason: `unknown write key "${maskWriteKey(writeKey)}" (masked): no source of this collector has it`,
      },
    }
  }
  return { writeKey }
}

/** The user name of a Basic `Authorization` header, or `null` when there is no usable one. */
export function basicUserName(authorization: string | undefined): string | null {
  const match = authorization === undefined ? null : BASIC.exec(authorization)
  if (match === null) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  const user = colon === -1 ? decoded : decoded.slice(0, colon)
  return user === '' ? null : user
}

/** The drop for a request whose `Content-Type` is not `application/json` (parameters such as `charset` allowed). */
export function checkContentType(contentType: string | undefined): Drop | undefined {
  const mediaType = contentType?.split(';', 1)[0].trim().toLowerCase()
  if (mediaType === 'application/json') return undefined
  const got = contentType === undefined ? 'none' : JSON.stringify(contentType)
  return { code: 'wrong_content_type', reason: `wrong Content-Type: it must be application/json (got ${got})` }
}
