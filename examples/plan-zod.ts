/**
 * A tracking plan with Zod: one definition gives the client's types (no interface to keep in
 * step), checks every call at run time, and exports JSON Schema for `eventrail dev --plan`.
 *
 *   npx tsc -p examples && node .examples-build/plan-zod.js plan.json    writes the plan's JSON Schema
 *   npx eventrail dev --plan plan.json                                   violations shown in the debugger
 *   node .examples-build/plan-zod.js
 */
import { writeFileSync } from 'node:fs'
import { Analytics } from 'eventrail'
import { definePlan } from 'eventrail/plan'
import { z } from 'zod'

export const plan = definePlan({
  events: {
    'Order Completed': z.object({ orderId: z.string(), total: z.number().min(0), currency: z.enum(['USD', 'EUR']) }),
    'Signed Up': z.object({ plan: z.enum(['free', 'pro']) }),
  },
  traits: z.object({ email: z.string(), name: z.string().optional() }),
})

const file = process.argv[2]
if (file !== undefined) {
  writeFileSync(file, JSON.stringify(plan.toJSONSchema(), null, 2))
  console.log(`wrote the plan's JSON Schema to ${file}`)
  process.exit(0)
}

// planMode 'report': a call that breaks the plan is still sent, and reported (the default outside
// NODE_ENV=test, where it throws instead).
const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  plan,
  planMode: 'report',
})
analytics.on('violation', (violation) => console.log(`violation: ${violation.message}`))

analytics.identify({ userId: 'user-42', traits: { email: 'ada@example.com' } })
analytics.track({ userId: 'user-42', event: 'Order Completed', properties: { orderId: 'o-1', total: 39, currency: 'EUR' } })
// Typed from the plan: `total: '39'` would not compile. Data from outside (a queue, a form) is
// only checked at run time:
const fromAQueue = JSON.parse('{"orderId":"o-2","total":"39","currency":"EUR"}') as { orderId: string; total: number; currency: 'EUR' }
analytics.track({ userId: 'user-42', event: 'Order Completed', properties: fromAQueue })

await analytics.closeAndFlush()
console.log(`sent ${analytics.stats().sent}, violations ${analytics.stats().violations}`)
