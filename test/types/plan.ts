// A client given a tracking plan takes its types from it: event names, each event's properties,
// identify and group traits, from one definition with any Standard Schema library. Plugins typed
// with the plan's catalog narrow properties per event.
import { z } from 'zod'
import * as v from 'valibot'
import { Analytics, type Plugin } from '../../src'
import { definePlan, type EventsOf } from '../../src/plan'
import { expectType, type Equal } from './assert'

const plan = definePlan({
  events: {
    'Order Completed': z.object({ orderId: z.string(), total: z.number(), coupon: z.string().optional() }),
    'Signed Up': v.object({ plan: v.picklist(['free', 'pro']) }),
  },
  traits: z.object({ email: z.string() }),
  groupTraits: z.object({ name: z.string() }),
})

const analytics = new Analytics('key', { plan })
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o1', total: 42 } })
analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } })
// @ts-expect-error an event the plan does not name
analytics.track({ userId: 'u1', event: 'Order Shipped', properties: {} })
// @ts-expect-error total must be a number
analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o1', total: '42' } })
// @ts-expect-error plan must be one of the picklist
analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })
analytics.identify({ userId: 'u1', traits: { email: 'a@b.c' } })
// @ts-expect-error email must be a string
analytics.identify({ userId: 'u1', traits: { email: 7 } })
analytics.group({ userId: 'u1', groupId: 'g1', traits: { name: 'Acme' } })
// @ts-expect-error name is required
analytics.group({ userId: 'u1', groupId: 'g1', traits: {} })

type Events = EventsOf<{ events: { A: z.ZodObject<{ n: z.ZodNumber }> } }>
expectType<Equal<Events, { A: { n: number } }>>(true)

// A client without a plan stays loose.
new Analytics('key').track({ userId: 'u1', event: 'Anything', properties: { x: 1 } })

// A plugin typed with the catalog narrows properties by event; a loose plugin fits any client.
const typed: Plugin<EventsOf<{ events: { 'Order Completed': z.ZodObject<{ total: z.ZodNumber }> } }>> = {
  name: 'round',
  process(message) {
    if (message.type === 'track' && message.event === 'Order Completed' && message.properties) {
      expectType<Equal<typeof message.properties.total, number>>(true)
      // @ts-expect-error not a property of the event
      void message.properties.nope
    }
  },
}
const loose: Plugin = { name: 'loose', process: (m) => (m.type === 'track' ? { ...m, event: m.event.trim() } : undefined) }
new Analytics('key', { plan, plugins: [typed, loose] })
// @ts-expect-error process must be given
new Analytics('key', { plugins: [{ name: 'x' }] })
