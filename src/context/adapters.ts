import { contextFromRequest, type FetchRequestLike, type NodeRequestLike, type RequestContextOptions } from './request'
import { withContext, type ContextClient } from './with-context'

/** The part of a Node response the adapters use: `appendHeader` (Node ≥ 18.3), for the cookie. */
export interface NodeResponseLike {
  /** Adds a header value (the `Set-Cookie` of a first visit) beside those already set. */
  appendHeader?(name: string, value: string): unknown
  /** Sets a header, where there is no `appendHeader`. */
  setHeader?(name: string, value: string): unknown
}

function appendCookie(res: NodeResponseLike, cookie: string | undefined): void {
  if (cookie === undefined) return
  if (typeof res.appendHeader === 'function') res.appendHeader('Set-Cookie', cookie)
  else res.setHeader?.('Set-Cookie', cookie)
}

/**
 * Express (4 and 5) and Connect middleware: runs the rest of the request inside its context
 * (`contextFromRequest(req, options)`), and sets the anonymous-id cookie on a first visit when
 * `setAnonymousId` asks for it.
 * @example
 * ```ts
 * app.use(expressContext(analytics, { trustProxy: 1 }))
 * app.post('/checkout', (req, res) => {
 *   analytics.track({ event: 'Checkout Started' } as never) // or inContext(analytics).track(…)
 *   res.sendStatus(204)
 * })
 * ```
 */
export function expressContext(
  analytics: ContextClient,
  options: RequestContextOptions<NodeRequestLike> = {},
): (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void) => void {
  return (req, res, next) => {
    let context
    try {
      context = contextFromRequest(req, options)
    } catch (err) {
      next(err)
      return
    }
    appendCookie(res, context.setCookie)
    withContext(analytics, context, () => next())
  }
}

/**
 * Koa (2 and 3) middleware: see {@link expressContext}.
 * @example
 * ```ts
 * app.use(koaContext(analytics, { trustProxy: 1 }))
 * ```
 */
export function koaContext(
  analytics: ContextClient,
  options: RequestContextOptions<NodeRequestLike> = {},
): (ctx: { req: NodeRequestLike; append(name: string, value: string): void }, next: () => Promise<unknown>) => Promise<unknown> {
  return (ctx, next) => {
    const context = contextFromRequest(ctx.req, options)
    if (context.setCookie !== undefined) ctx.append('Set-Cookie', context.setCookie)
    return withContext(analytics, context, next)
  }
}

/**
 * A Fastify (4 and 5) `onRequest` hook: the route's handler runs inside the request's context.
 * Register it where its routes are (on the root instance for all of them).
 * @example
 * ```ts
 * fastify.addHook('onRequest', fastifyContext(analytics, { trustProxy: 1 }))
 * ```
 */
export function fastifyContext(
  analytics: ContextClient,
  options: RequestContextOptions<NodeRequestLike> = {},
): (request: { raw: NodeRequestLike }, reply: { header(name: string, value: string): unknown }, done: (err?: Error) => void) => void {
  return (request, reply, done) => {
    let context
    try {
      context = contextFromRequest(request.raw, options)
    } catch (err) {
      done(err as Error)
      return
    }
    if (context.setCookie !== undefined) reply.header('set-cookie', context.setCookie)
    withContext(analytics, context, () => done())
  }
}

/** The part of Hono's context the adapter uses. */
export interface HonoContextLike {
  /** The request; `raw` is the Fetch `Request`. */
  readonly req: { readonly raw: FetchRequestLike }
  /** The platform's bindings; on `@hono/node-server`, `incoming` is the Node request. */
  readonly env?: unknown
  /** Sets a response header (`append` keeps those already set). */
  header(name: string, value: string, options?: { append?: boolean | undefined }): void
}

/**
 * Hono (4) middleware. A Fetch request has no connection address: on `@hono/node-server` it is
 * read from the Node request (`c.env.incoming`); elsewhere give `remoteAddress` in `options` per
 * request with `remoteAddressOf` (e.g. Hono's `getConnInfo(c).remote.address`).
 * @example
 * ```ts
 * app.use(honoContext(analytics, { trustProxy: 1 }))
 * ```
 */
export function honoContext(
  analytics: ContextClient,
  options: RequestContextOptions<FetchRequestLike> & { remoteAddressOf?: ((c: HonoContextLike) => string | undefined) | undefined } = {},
): (c: HonoContextLike, next: () => Promise<void>) => Promise<void> {
  const { remoteAddressOf, ...rest } = options
  return async (c, next) => {
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
    const remoteAddress = remoteAddressOf?.(c) ?? rest.remoteAddress ?? incoming?.socket?.remoteAddress
    const context = contextFromRequest(c.req.raw, { ...rest, remoteAddress })
    if (context.setCookie !== undefined) c.header('Set-Cookie', context.setCookie, { append: true })
    await withContext(analytics, context, next)
  }
}

/**
 * Wraps a Next.js route handler (`app/…/route.ts`, or any handler of a Fetch `Request` that returns
 * a `Response`: Workers, Deno, Bun) so that it runs inside the request's context; sets the
 * anonymous-id cookie on its response on a first visit when `setAnonymousId` asks for it.
 * @example
 * ```ts
 * export const POST = nextContext(analytics, { trustProxy: 1 }, async (request) => {
 *   analytics.track({ event: 'Signed Up' } as never)
 *   return Response.json({ ok: true })
 * })
 * ```
 */
export function nextContext<Request extends FetchRequestLike, Rest extends unknown[], R extends Response>(
  analytics: ContextClient,
  options: RequestContextOptions<Request>,
  handler: (request: Request, ...rest: Rest) => R | Promise<R>,
): (request: Request, ...rest: Rest) => Promise<R> {
  return async (request, ...rest) => {
    const context = contextFromRequest(request, options)
    const response = await withContext(analytics, context, () => handler(request, ...rest))
    if (context.setCookie !== undefined) {
      try {
        response.headers.append('Set-Cookie', context.setCookie)
      } catch {
        // An immutable response (Response.redirect, a fetched one): the cookie waits for the next visit.
      }
    }
    return response
  }
}
