// A client typed with an event catalog checks each event's properties and rejects unknown event
// names; identify and group traits are typed the same way. No code generation: plain types.
import { Analytics, type EventFields, type TrackMessage } from '../../src'
import { any, expectType, type Equal } from './assert'

interface ShopEvents {
  'Order Completed': { orderId: string; total: number; coupon?: string }
  'Signed Up': { plan: 'free' | 'pro' }
  'Product Viewed': { sku?: string }
  'Logged Out': Record<string, never>
}
interface UserTraits {
  email: string
  plan?: 'free' | 'pro'
}
interface CompanyTraits {
  name: string
  seats: number
}

const analytics = new Analytics<ShopEvents, UserTraits, CompanyTraits>('key')

// Each event with its own properties.
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o-1', total: 42 } })
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o-1', total: 42, coupon: 'X' } })
analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } })
// Events whose properties are all optional may leave them out.
analytics.track({ userId: 'u1', event: 'Product Viewed' })
analytics.track({ userId: 'u1', event: 'Product Viewed', properties: {} })
analytics.track({ userId: 'u1', event: 'Logged Out' })
// Common fields still work.
analytics.track({ anonymousId: 'a1', event: 'Logged Out', context: { ip: '203.0.113.9' }, timestamp: new Date() })

expectType<Equal<TrackMessage<ShopEvents>['event'], keyof ShopEvents>>(true)
expectType<Equal<Extract<EventFields<ShopEvents>, { event: 'Signed Up' }>['properties'], { plan: 'free' | 'pro' }>>(true)

// @ts-expect-error an event name that is not in the catalog
analytics.track({ userId: 'u1', event: 'Order Complete', properties: { orderId: 'o-1', total: 42 } })
// @ts-expect-error a property of the wrong type
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o-1', total: '42' } })
// @ts-expect-error a required property missing
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o-1' } })
// @ts-expect-error an event with required properties needs "properties"
analytics.track({ userId: 'u1', event: 'Order Completed' })
// @ts-expect-error a property the event does not have
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o-1', total: 42, extra: 1 } })
// @ts-expect-error the properties of another event
analytics.track({ userId: 'u1', event: 'Signed Up', properties: { orderId: 'o-1', total: 42 } })
// @ts-expect-error a value outside a literal union
analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'enterprise' } })
// @ts-expect-error Record<string, never> declares an event without properties
analytics.track({ userId: 'u1', event: 'Logged Out', properties: { reason: 'idle' } })
// @ts-expect-error an event name only known at run time is not checked, so it is refused
analytics.track({ userId: 'u1', event: any<string>() })

// Traits of identify and group.
analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com', plan: 'pro' } })
analytics.identify({ userId: 'u1' })
analytics.group({ userId: 'u1', groupId: 'acme', traits: { name: 'Acme', seats: 12 } })
// @ts-expect-error a trait of the wrong type
analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com', plan: 'gold' } })
// @ts-expect-error a required trait missing
analytics.identify({ userId: 'u1', traits: { plan: 'pro' } })
// @ts-expect-error a trait the type does not have
analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com', age: 36 } })
// @ts-expect-error group traits are checked
analytics.group({ userId: 'u1', groupId: 'acme', traits: { name: 'Acme', seats: '12' } })

// Only the type parameters given are strict: the others stay loose.
const eventsOnly = new Analytics<ShopEvents>('key')
eventsOnly.identify({ userId: 'u1', traits: { anything: true } })
eventsOnly.group({ userId: 'u1', groupId: 'g', traits: { whatever: [1, 2] } })
// @ts-expect-error but events are still checked
eventsOnly.track({ userId: 'u1', event: 'Unknown' })

// A catalog written as a type alias works the same as an interface.
type AliasEvents = { 'Page Liked': { pageId: number } }
const aliasTyped = new Analytics<AliasEvents>('key')
aliasTyped.track({ userId: 'u1', event: 'Page Liked', properties: { pageId: 1 } })
// @ts-expect-error checked like an interface catalog
aliasTyped.track({ userId: 'u1', event: 'Page Liked', properties: { pageId: '1' } })
