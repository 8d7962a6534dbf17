import { ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'
import type { Context, Id } from '../core/types'
import { resolveConsent, type ConsentOptions } from './consent'
import { anonymousIdCookie, ANONYMOUS_ID_COOKIE, cookieValue, decodeAjsId, USER_ID_COOKIE, type AnonymousIdCookie } from './cookies'
import { checkTrustProxy, clientAddress, type TrustProxy } from './client-ip'
import type { ContextInput } from './frame'
import { campaignOf, localeOf } from './request-fields'

/** A Node request (`http.IncomingMessage`, Express's, Fastify's `request.raw`, Koa's `ctx.req`). */
export interface NodeRequestLike {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  readonly url?: string | undefined
  /** Express's (the URL before its routers cut it). */
  readonly originalUrl?: string | undefined
  readonly socket?: { readonly remoteAddress?: string | undefined; readonly encrypted?: boolean | undefined } | null | undefined
}

/** A Fetch API request (Hono's `c.req.raw`, Next.js's `NextRequest`, Workers, Deno, Bun). */
export interface FetchRequestLike {
  /** The request's headers. */
  readonly headers: {
    /** A header's value, `null` when absent. */
    get(name: string): string | null
  }
  readonly url: string
}

/** A request `contextFromRequest` reads. */
export type RequestLike = NodeRequestLike | FetchRequestLike

/** Options of {@link contextFromRequest}. */
export interface RequestContextOptions<Request = RequestLike> {
  /** Which proxies to believe about the client's address and the page's scheme and host. See {@link TrustProxy}. @defaultValue `false` */
  trustProxy?: TrustProxy | undefined
  /** The connection's address, for a Fetch request (which has none): Hono's `getConnInfo(c).remote.address`, for example. */
  remoteAddress?: string | undefined
  /** Reads analytics.js's `ajs_anonymous_id` and `ajs_user_id` cookies. `false` reads none. @defaultValue `true` */
  cookies?: boolean | undefined
  /**
   * On a first visit (no `ajs_anonymous_id` cookie), gives the request a new anonymous id and
   * returns the `Set-Cookie` that hands it to the browser (`setCookie`), in the format and with the
   * cookie settings analytics.js uses (see {@link AnonymousIdCookie}): browser and server then share
   * one anonymous id. The adapters set it on the response. @defaultValue `false`
   */
  setAnonymousId?: boolean | AnonymousIdCookie | undefined
  /** The signed-in user's id, from your session; wins over the `ajs_user_id` cookie. */
  userId?: ((request: Request) => Id | undefined) | undefined
  /** Stamps `context.page` (`url`, `path`, `search`, `referrer`) and `context.campaign` (`utm_*`). @defaultValue `true` */
  page?: boolean | undefined
  /** The request's consent: stamped, or stamped and enforced. See {@link ConsentOptions}. */
  consent?: ConsentOptions<Request> | undefined
}

/** What a request says about its user: a context for `withContext`, and the cookie to set, if any. */
export interface RequestContext extends ContextInput {
  /** `ip`, `userAgent`, `locale`, `page`, `campaign`: those the request has. */
  context: Context
  /** The `Set-Cookie` header value that gives the browser its new anonymous id (`setAnonymousId`, first visit only). */
  setCookie?: string | undefined
}

function isFetchRequest(request: RequestLike): request is FetchRequestLike {
  return typeof (request.headers as { get?: unknown }).get === 'function'
}

function headerOf(request: RequestLike, name: string): string | undefined {
  if (isFetchRequest(request)) return request.headers.get(name) ?? undefined
  const value = request.headers[name]
  return value === undefined ? undefined : typeof value === 'string' ? value : value.join(', ')
}

function firstOf(value: string | undefined): string | undefined {
  const first = value?.split(',')[0]?.trim()
  return first === '' ? undefined : first
}

interface PageUrl {
  readonly href: string
  readonly path: string
  readonly search: string
}

function pageUrlOf(request: RequestLike, trusted: boolean): PageUrl | undefined {
  if (isFetchRequest(request)) {
    try {
      const url = new URL(request.url)
      return { href: url.href, path: url.pathname, search: url.search }
    } catch {
      return undefined
    }
  }
  // A Node request's target is a path (origin form): no URL parser needed on every request.
  const target = request.originalUrl ?? request.url ?? '/'
  if (!target.startsWith('/')) return undefined
  const forwardedProto = trusted ? firstOf(headerOf(request, 'x-forwarded-proto')) : undefined
  const forwardedHost = trusted ? firstOf(headerOf(request, 'x-forwarded-host')) : undefined
  const scheme = forwardedProto ?? (request.socket?.encrypted === true ? 'https' : 'http')
  const host = forwardedHost ?? headerOf(request, 'host')
  if (host === undefined || !/^[\w.:[\]-]+$/.test(host)) return undefined
  const at = target.indexOf('?')
  const path = at < 0 ? target : target.slice(0, at)
  const search = at < 0 || at === target.length - 1 ? '' : target.slice(at)
  return { href: `${scheme}://${host}${target}`, path, search }
}

/**
 * Reads a request (Node's `IncomingMessage` or a Fetch `Request`) into a context for
 * `withContext`: `context.ip` (the connection's address, or a trusted proxy's `X-Forwarded-For`),
 * `context.userAgent`, `context.locale` (`Accept-Language`), `context.page` (`url`, `path`,
 * `search`, `referrer`), `context.campaign` (`utm_source` → `source`, `utm_campaign` → `name` …),
 * the browser's `anonymousId` and `userId` from analytics.js's cookies (every encoding it writes),
 * and the request's consent (with `Sec-GPC: 1`). The framework adapters call it for you.
 * @throws ValidationError naming the option when an option is not valid.
 * @example
 * ```ts
 * http.createServer((req, res) => {
 *   withContext(analytics, contextFromRequest(req, { trustProxy: 1 }), () => handle(req, res))
 * })
 * ```
 */
export function contextFromRequest<Request extends RequestLike>(
  request: Request,
  options: RequestContextOptions<Request> = {},
): RequestContext {
  if (typeof request !== 'object' || request === null || typeof request.headers !== 'object' || request.headers === null) {
    throw new ValidationError(
      'request',
      `must be a Node IncomingMessage or a Fetch Request, got ${describeValue(request)}`,
      'contextFromRequest',
    )
  }
  const trust = checkTrustProxy(options.trustProxy)
  const context: Context = {}
  const remote = options.remoteAddress ?? (isFetchRequest(request) ? undefined : request.socket?.remoteAddress)
  const ip = clientAddress(remote, headerOf(request, 'x-forwarded-for'), trust)
  if (ip !== undefined) context.ip = ip
  const userAgent = headerOf(request, 'user-agent')
  if (userAgent !== undefined && userAgent !== '') context.userAgent = userAgent
  const locale = localeOf(headerOf(request, 'accept-language'))
  if (locale !== undefined) context.locale = locale
  if (options.page !== false) {
    const url = pageUrlOf(request, trust !== false)
    if (url !== undefined) {
      const referrer = headerOf(request, 'referer')
      context.page = { url: url.href, path: url.path, search: url.search, ...(referrer ? { referrer } : {}) }
      const campaign = url.search.includes('utm_') ? campaignOf(new URLSearchParams(url.search)) : undefined
      if (campaign !== undefined) context.campaign = campaign
    }
  }
  const result: RequestContext = { context }
  const cookieHeader = options.cookies === false ? undefined : headerOf(request, 'cookie')
  const anonymousId = decodeAjsId(cookieValue(cookieHeader, ANONYMOUS_ID_COOKIE))
  const userId = options.userId?.(request) ?? decodeAjsId(cookieValue(cookieHeader, USER_ID_COOKIE))
  if (userId !== undefined && userId !== null) result.userId = userId
  if (anonymousId !== undefined) result.anonymousId = anonymousId
  else if (options.setAnonymousId !== undefined && options.setAnonymousId !== false) {
    result.anonymousId = crypto.randomUUID()
    result.setCookie = anonymousIdCookie(result.anonymousId, options.setAnonymousId === true ? {} : options.setAnonymousId)
  }
  if (options.consent !== undefined) result.consent = resolveConsent(options.consent, request, headerOf(request, 'sec-gpc')?.trim() === '1')
  return result
}
