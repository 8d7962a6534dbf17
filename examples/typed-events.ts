/**
 * Typed events without code generation: a type that maps each event name to its properties makes
 * `track()` check them, and reject unknown names. Traits of `identify` and `group` work the same.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/typed-events.js
 */
import { Analytics } from 'eventrail'

/** The tracking plan: every event the app sends, with its properties. */
interface ShopEvents {
  'Product Viewed': { sku: string; price: number }
  'Order Completed': { orderId: string; total: number; currency: 'EUR' | 'USD'; coupon?: string }
  'Newsletter Subscribed': { list?: string } // every property optional: `properties` may be left out
}

/** What the app knows about a user, and about a company. */
interface UserTraits {
  email: string
  plan?: 'free' | 'pro'
}
interface CompanyTraits {
  name: string
  employees: number
}

const analytics = new Analytics<ShopEvents, UserTraits, CompanyTraits>(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
})

const userId = 'user-42'
analytics.identify({ userId, traits: { email: 'ada@example.com', plan: 'pro' } })
analytics.group({ userId, groupId: 'acme', traits: { name: 'Acme Inc.', employees: 120 } })
analytics.track({ userId, event: 'Product Viewed', properties: { sku: 'SKU-1', price: 19.5 } })
analytics.track({ userId, event: 'Order Completed', properties: { orderId: 'o-1001', total: 39, currency: 'EUR' } })
analytics.track({ userId, event: 'Newsletter Subscribed' })

// Mistakes the compiler catches. CI type-checks this file, so each line below stays an error;
// the function is never called.
export function mistakes(): void {
  // @ts-expect-error "Order Complete" is not in the tracking plan
  analytics.track({ userId, event: 'Order Complete', properties: { orderId: 'o-2', total: 39, currency: 'EUR' } })
  // @ts-expect-error "currency" must be 'EUR' or 'USD'
  analytics.track({ userId, event: 'Order Completed', properties: { orderId: 'o-3', total: 39, currency: 'GBP' } })
  // @ts-expect-error "price" is missing
  analytics.track({ userId, event: 'Product Viewed', properties: { sku: 'SKU-2' } })
  // @ts-expect-error neither userId nor anonymousId: the service would drop this message
  analytics.track({ event: 'Newsletter Subscribed' })
  // @ts-expect-error "email" is a required trait
  analytics.identify({ userId, traits: { plan: 'free' } })
}

await analytics.flush()
const { sent, requests } = analytics.stats()
console.log(`${sent} messages sent in ${requests} requests`)
