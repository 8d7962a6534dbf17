/**
 * Plugins: every message goes through them, in order, after validation and before it is sent.
 * Three common ones: a PII scrubber (fails closed: a scrubber that breaks never lets an unscrubbed
 * message out), an enrichment (fails open: a missing region is no reason to lose the event), and a
 * bot filter (drops messages on purpose). App name and version need no plugin: `context` does it.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/plugins.js
 */
import { Analytics, type Plugin } from 'eventrail'

/** Removes email addresses and phone numbers from properties and traits, wherever they nest. */
const scrubPii: Plugin = {
  name: 'scrub-pii',
  process(message) {
    for (const field of ['properties', 'traits'] as const) {
      const value = message[field]
      if (value !== undefined && value !== null && typeof value === 'object') scrub(value as Record<string, unknown>)
    }
  },
}

const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/g
const PHONE = /\+?\d[\d\s().-]{7,}\d/g
function scrub(object: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(object)) {
    if (key === 'email' || key === 'phone') delete object[key]
    else if (typeof value === 'string') object[key] = value.replace(EMAIL, '[email]').replace(PHONE, '[phone]')
    else if (value !== null && typeof value === 'object') scrub(value as Record<string, unknown>)
  }
}

/** Adds the region the process runs in; a lookup that fails lets the message go without it. */
const addRegion: Plugin = {
  name: 'add-region',
  onError: 'continue',
  async process(message) {
    message.context.region = await lookUpRegion()
  },
}
function lookUpRegion(): Promise<string> {
  return Promise.resolve(process.env.REGION ?? 'eu-west-1')
}

/** Drops what crawlers and health checks do: an outcome, not an error. */
const dropBots: Plugin = {
  name: 'drop-bots',
  types: ['track', 'page'],
  process: (message) => (String(message.context.userAgent ?? '').match(/bot|crawler|spider/i) ? null : undefined),
}

const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  context: { app: { name: 'shop-api', version: '1.4.0' } },
  plugins: [dropBots, scrubPii, addRegion],
})

const outcomes: string[] = []
const report = (what: string) => (err: Error | undefined) => outcomes.push(`${what}: ${err ? err.message : 'sent'}`)

analytics.identify({ userId: 'user-42', traits: { email: 'ada@example.com', name: 'Ada', plan: 'pro' } }, report('identify'))
analytics.track(
  { userId: 'user-42', event: 'Support Ticket Opened', properties: { text: 'Call me at +44 20 7946 0958 or ada@example.com' } },
  report('ticket'),
)
analytics.page({ anonymousId: 'anon-1', name: 'Pricing', context: { userAgent: 'Googlebot/2.1' } }, report('bot page'))

await analytics.closeAndFlush()
for (const line of outcomes) console.log(line)
console.log(`filtered ${analytics.stats().filtered}, sent ${analytics.stats().sent}`)
