/**
 * An Express app whose events carry the request's identity, context and consent without passing
 * them to each call: eventrail/context's middleware reads the browser's analytics.js cookies, the
 * IP behind one proxy, the user agent, the page and the campaign, and the consent cookie and
 * Sec-GPC, and enforces consent where the call is made.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/request-context.js
 *   curl 'http://127.0.0.1:3000/pricing?utm_source=newsletter' -H 'Cookie: ajs_anonymous_id=%22anon-1%22; consent=analytics'
 *   curl http://127.0.0.1:3000/pricing -H 'Sec-GPC: 1' -H 'Cookie: consent=analytics,advertising'
 */
import type { AddressInfo } from 'node:net'
import express from 'express'
import { Analytics, ConsentError } from 'eventrail'
import { expressContext, inContext, type NodeRequestLike } from 'eventrail/context'

const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  errorHandler: (err) => console.error(`analytics: ${err.message}`),
})
analytics.on('drop', ({ error }) => {
  if (ConsentError.is(error)) console.log(`withheld for consent: ${error.categories.join(', ')}${error.gpc ? ' (GPC)' : ''}`)
})
// Typed for calls inside a request: no userId or anonymousId on the message, the request gives them.
const tracked = inContext(analytics)

// Your consent manager's cookie; here a plain list of the categories the user accepted.
function consentFrom(request: NodeRequestLike): Record<string, boolean> | undefined {
  const cookie = String(request.headers.cookie ?? '')
  const accepted = /(?:^|; )consent=([^;]*)/.exec(cookie)?.[1]?.split(',')
  return accepted === undefined ? undefined : { Analytics: accepted.includes('analytics'), Advertising: accepted.includes('advertising') }
}

const app = express()
app.use(
  expressContext(analytics, {
    trustProxy: 1, // one load balancer in front: the client's IP is the last X-Forwarded-For entry
    setAnonymousId: true, // a first visit gets the ajs_anonymous_id cookie analytics.js reads
    consent: {
      mode: 'enforce',
      read: consentFrom,
      defaults: { Analytics: false, Advertising: false }, // opt-in
      saleOrSharing: ['Advertising'], // Sec-GPC: 1 turns these off
      categories: { 'Ad Impression': ['Advertising'], '*': ['Analytics'] },
    },
  }),
)

app.get('/pricing', async (_req, res) => {
  tracked.page({ name: 'Pricing' })
  const ad = await tracked.deliver.track({ event: 'Ad Impression', properties: { slot: 'sidebar' } })
  res.json({ adTracked: ad.delivered })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})

process.once('SIGTERM', () => {
  server.close()
  void analytics.closeAndFlush({ timeout: 5_000 }).then(() => {
    const { sent, refusedBy } = analytics.stats()
    console.log(`drained: ${sent} sent, ${refusedBy.consent ?? 0} withheld for consent`)
  })
})
