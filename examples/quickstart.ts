/**
 * Quick start: one message of each kind, then `flush()`.
 *
 *   npm run demo        starts a local collector, runs this file against it, prints what arrived
 *   npx eventrail dev   or keep a collector (and its debugger page) running on http://127.0.0.1:4040
 *                       and run this file against it
 */
import { Analytics, type TrackMessage } from 'eventrail'

const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
})

const userId = 'user-42'
analytics.identify({ userId, traits: { name: 'Ada Lovelace', email: 'ada@example.com', plan: 'pro' } })
analytics.track({ userId, event: 'Order Completed', properties: { orderId: 'o-1001', total: 42.5, currency: 'EUR' } })
analytics.page({ anonymousId: 'anon-7', name: 'Pricing', properties: { url: 'https://example.com/pricing' } })
analytics.screen({ userId, name: 'Settings' })
analytics.group({ userId, groupId: 'acme', traits: { name: 'Acme Inc.', employees: 120 } })
analytics.alias({ previousId: 'anon-7', userId })

// Destination selection: this one goes to Mixpanel only.
analytics.track({ userId, event: 'Newsletter Subscribed', integrations: { All: false, Mixpanel: true } })
// Historical import: a past timestamp reaches only the destinations that take historical data.
analytics.track({ userId, event: 'Account Created', timestamp: new Date('2021-11-19T09:00:00Z') })

// The client refuses these two before anything is sent; their callbacks get the error.
const report = (err: Error | undefined): void => {
  if (err) console.log(`refused by the client: ${err.name}: ${err.message}`)
}
// No "event": TypeScript rejects this call, so the cast stands for plain JavaScript input.
analytics.track({ userId } as unknown as TrackMessage, report)
// Over the 32 KB a message may have.
analytics.track({ userId, event: 'Photo Uploaded', properties: { photo: 'x'.repeat(40_000) } }, report)

// Short-lived processes wait for every message to have an outcome before they exit.
await analytics.flush()
const { sent, dropped, requests } = analytics.stats()
console.log(`flushed: ${sent} messages sent in ${requests} requests, ${dropped} refused by the client`)
