/**
 * Context that follows the request: `import { withContext, contextFromRequest } from 'eventrail/context'`.
 * Messages made inside a request's context get its identity (`userId`, `anonymousId`), its context
 * (IP, user agent, locale, page, campaign) and its consent, without threading them through each
 * call. Built on `AsyncLocalStorage`; nothing of it is loaded by `import 'eventrail'`.
 * @module eventrail/context
 */
export { withContext, currentContext, stampTraces } from './context/with-context'
export type { ContextClient } from './context/with-context'
export type { ContextInput } from './context/frame'
export type { TraceApi, TraceSpan } from './context/trace'
export { resolveConsent } from './context/consent'
export type { Consent, ConsentMode, ConsentOptions, ConsentCategories, CategoryPreferences } from './context/consent'
export { ConsentError } from './core/errors'
export { inContext } from './context/in-context'
export type { ContextAnalytics, ContextIdentity, ContextMessages, ContextMethods, ContextDeliverMethods } from './context/in-context'
export { contextFromRequest } from './context/request'
export type { RequestContext, RequestContextOptions, RequestLike, NodeRequestLike, FetchRequestLike } from './context/request'
export type { TrustProxy } from './context/client-ip'
export { anonymousIdCookie, decodeAjsId, ANONYMOUS_ID_COOKIE, USER_ID_COOKIE } from './context/cookies'
export type { AnonymousIdCookie } from './context/cookies'
export { expressContext, koaContext, fastifyContext, honoContext, nextContext } from './context/adapters'
export type { NodeResponseLike, HonoContextLike } from './context/adapters'
