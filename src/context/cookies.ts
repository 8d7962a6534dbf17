/** The cookies analytics.js (Segment's browser library) keeps the user's ids in. */
export const ANONYMOUS_ID_COOKIE = 'ajs_anonymous_id'
/** See {@link ANONYMOUS_ID_COOKIE}. */
export const USER_ID_COOKIE = 'ajs_user_id'

// An id from a cookie is the browser's to set: capped, and control characters refused.
const MAX_ID_LENGTH = 1000
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/** The value of cookie `name` in a `Cookie` header, as written (still encoded); `undefined` when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header === '') return undefined
  // Searched, not split: every request's Cookie header is read, most of it other cookies.
  let from = 0
  while (from < header.length) {
    const at = header.indexOf(name, from)
    if (at < 0) return undefined
    from = at + name.length
    let before = at - 1
    while (before >= 0 && header.charCodeAt(before) === 32) before--
    let after = from
    while (after < header.length && header.charCodeAt(after) === 32) after++
    if ((before < 0 || header.charCodeAt(before) === 59) && header.charCodeAt(after) === 61) {
      const end = header.indexOf(';', after + 1)
      return header.slice(after + 1, end < 0 ? header.length : end).trim()
    }
  }
  return undefined
}

/**
 * An id as analytics.js writes it into its cookie, in each encoding it has used: JSON-quoted and
 * URI-encoded (`%22abc%22`: analytics.js classic, which stores `JSON.stringify(id)` with
 * `encodeURIComponent`), plain (`abc`: analytics-next stores a string as it is, through js-cookie),
 * JSON-quoted unencoded (`"abc"`), or URI-encoded (`a%40b`). analytics-next reads it back the same
 * way: `JSON.parse`, else the raw value. `undefined` for an empty, `null`, over-long or malformed id.
 */
export function decodeAjsId(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  let text = raw
  if (raw.includes('%')) {
    try {
      text = decodeURIComponent(raw)
    } catch {
      // Not URI-encoded after all: js-cookie leaves it as written, so do we.
    }
  }
  if (text.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text)
      text = typeof parsed === 'string' ? parsed : ''
    } catch {
      return undefined
    }
  } else if (text === 'null' || text === 'undefined') {
    return undefined
  }
  if (text.trim() === '' || text.length > MAX_ID_LENGTH || CONTROL.test(text)) return undefined
  return text
}

/** The cookie attributes of the anonymous-id cookie: analytics.js's own defaults unless given. */
export interface AnonymousIdCookie {
  /**
   * The cookie's domain. analytics.js sets its cookie on the top-level domain it can write
   * (`example.com` for `www.example.com`, found by trial); give the same here so that the browser
   * and the server share one cookie. Left out, the cookie is the request's host's only.
   */
  domain?: string | undefined
  /** @defaultValue `'/'` */
  path?: string | undefined
  /** @defaultValue `'Lax'` */
  sameSite?: 'Lax' | 'Strict' | 'None' | undefined
  /** @defaultValue `false` (analytics.js's default), `true` with `sameSite: 'None'` */
  secure?: boolean | undefined
  /** Lifetime in days. @defaultValue `365` (analytics.js's `maxage`) */
  maxAgeDays?: number | undefined
}

/**
 * The `Set-Cookie` value that gives the browser `anonymousId` in the format analytics.js reads:
 * the id JSON-quoted and URI-encoded (`ajs_anonymous_id=%22<id>%22`), which analytics-next
 * (`JSON.parse` of the js-cookie-decoded value) and analytics.js classic (`JSON.parse` of the
 * decoded value) both read back as the id; with analytics.js's defaults (analytics-next
 * `packages/browser/src/core/storage/cookieStorage.ts`: `maxage: 365` days, `path: '/'`,
 * `sameSite: 'Lax'`, the top-level `domain`). Not `HttpOnly`: the browser library must read it.
 */
export function anonymousIdCookie(anonymousId: string, options: AnonymousIdCookie = {}): string {
  const { domain, path = '/', sameSite = 'Lax', maxAgeDays = 365 } = options
  const secure = options.secure ?? sameSite === 'None'
  const maxAge = Math.round(maxAgeDays * 86_400)
  const expires = new Date(Date.now() + maxAge * 1000).toUTCString()
  const parts = [
    `${ANONYMOUS_ID_COOKIE}=${encodeURIComponent(JSON.stringify(anonymousId))}`,
    `Max-Age=${maxAge}`,
    `Expires=${expires}`,
    `Path=${path}`,
  ]
  if (domain !== undefined) parts.push(`Domain=${domain}`)
  parts.push(`SameSite=${sameSite}`)
  if (secure) parts.push('Secure')
  return parts.join('; ')
}
