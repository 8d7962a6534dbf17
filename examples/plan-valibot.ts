/**
 * A tracking plan with Valibot, in drop mode: a call that breaks the plan is not sent, and its
 * callback says why. Any Standard Schema library works the same way (Zod, Valibot, ArkType …).
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/plan-valibot.js
 */
import { Analytics } from 'eventrail'
import { definePlan } from 'eventrail/plan'
import * as v from 'valibot'

const plan = definePlan({
  events: {
    'Song Played': v.object({ songId: v.string(), seconds: v.pipe(v.number(), v.minValue(0)) }),
  },
})

const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  plan,
  planMode: 'drop',
})

const played = (seconds: number) =>
  analytics.track({ userId: 'user-42', event: 'Song Played', properties: { songId: 's-1', seconds } }, (err) =>
    console.log(err ? `not sent: ${err.message}` : `sent: ${seconds} s`),
  )
played(184)
played(-3)

await analytics.closeAndFlush()
