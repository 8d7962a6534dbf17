import type { Analytics } from '../client/analytics'
import type { Delivery } from '../client/deliver-methods'
import type { AnyEvents, Callback, CommonFields, EventCatalog, EventFields, Id, PageProperties, Properties, Traits } from '../core/types'

/** Ids a message made inside a context may leave out: the context gives them. */
export interface ContextIdentity {
  userId?: Id | null
  anonymousId?: Id | null
}

/** The message types of `Analytics`' methods when the context gives the identity. */
export interface ContextMessages<Events extends EventCatalog, UserTraits extends object, GroupTraits extends object> {
  identify: ContextIdentity & CommonFields & { traits?: UserTraits }
  track: ContextIdentity & CommonFields & EventFields<Events>
  page: ContextIdentity & CommonFields & { name?: string; category?: string; properties?: PageProperties }
  screen: ContextIdentity & CommonFields & { name?: string; category?: string; properties?: Properties }
  group: ContextIdentity & CommonFields & { groupId: Id; traits?: GroupTraits }
  alias: CommonFields & { userId?: Id; previousId: Id }
}

/** The message methods over message types `M`: each takes its message and an optional callback. */
export type ContextMethods<M> = { [K in keyof M]: (message: M[K], callback?: Callback) => unknown }

/** The `deliver.*` methods over message types `M`: each resolves with its message's outcome. */
export type ContextDeliverMethods<M> = { [K in keyof M]: (message: M[K]) => Promise<Delivery> }

/**
 * An `Analytics` typed for calls made inside a context: the message methods (and `deliver.*`)
 * accept messages without `userId` or `anonymousId`. It is the same client: a message without
 * an identity made outside any context is still refused as invalid.
 */
export type ContextAnalytics<
  Events extends EventCatalog = AnyEvents,
  UserTraits extends object = Traits,
  GroupTraits extends object = Traits,
> = Omit<Analytics<Events, UserTraits, GroupTraits>, keyof ContextMessages<Events, UserTraits, GroupTraits> | 'deliver'> &
  ContextMethods<ContextMessages<Events, UserTraits, GroupTraits>> & {
    readonly deliver: ContextDeliverMethods<ContextMessages<Events, UserTraits, GroupTraits>>
  }

/**
 * The same client, typed for calls inside a context (see {@link ContextAnalytics}): nothing changes
 * at run time.
 * @example
 * ```ts
 * const tracked = inContext(analytics)
 * withContext(analytics, { userId: 'u1' }, () => tracked.track({ event: 'Signed In' }))
 * ```
 */
export function inContext<Events extends EventCatalog, UserTraits extends object, GroupTraits extends object>(
  analytics: Analytics<Events, UserTraits, GroupTraits>,
): ContextAnalytics<Events, UserTraits, GroupTraits> {
  return analytics as unknown as ContextAnalytics<Events, UserTraits, GroupTraits>
}
