// Issue 30: "A plan-typed client given an `event` typed `any` reports that `anonymousId` is
// missing." An event name typed `any` (parsed JSON, an untyped library) cannot be checked by the
// compiler: the message type-checks with free-form properties (a plan still checks it at run
// time), in an object literal or a variable, for track and deliver.track. Names typed `string`
// are still refused, and so is a message with no id.
import { z } from 'zod'
import { Analytics, type TrackInput, type TrackMessage } from '../../src'
import { definePlan } from '../../src/plan'
import { expectType, type Equal } from './assert'

const plan = definePlan({
  events: {
    'Order Completed': z.object({ orderId: z.string(), total: z.number() }),
    'Signed Up': z.object({ plan: z.string() }),
  },
})
const analytics = new Analytics('key', { plan })
declare const someAny: any
declare const someString: string

analytics.track({ userId: 'u', event: someAny, properties: {} })
analytics.track({ anonymousId: 'a', event: someAny })
analytics.track({ userId: 'u', event: someAny, properties: { anything: [1, 2] } })
const fromJson = { userId: 'u', event: someAny, properties: {} }
analytics.track(fromJson)
void analytics.deliver.track({ userId: 'u', event: someAny, properties: {} })

// A catalog client too.
interface Events {
  A: { a: number }
  B: { b: string }
}
const typed = new Analytics<Events>('key')
typed.track({ userId: 'u', event: someAny, properties: {} })
typed.track(fromJson)
// The names still check: a known name with its properties, and not a string.
typed.track({ userId: 'u', event: 'A', properties: { a: 1 } })
// @ts-expect-error a known name with the properties of another event
typed.track({ userId: 'u', event: 'A', properties: { b: 'x' } })
// @ts-expect-error an event typed string is not a name of the catalog
typed.track({ userId: 'u', event: someString, properties: {} })
// @ts-expect-error an event typed string is not a name of the plan
analytics.track({ userId: 'u', event: someString, properties: { plan: 'x' } })
// @ts-expect-error the identity rule still holds with an untyped event
analytics.track({ event: someAny, properties: {} })
// @ts-expect-error properties are an object
analytics.track({ userId: 'u', event: someAny, properties: 'x' })

// The public message type is unchanged: its `event` is the catalog's names.
expectType<Equal<TrackMessage<Events>['event'], keyof Events>>(true)
// Without a catalog, TrackInput is TrackMessage.
expectType<Equal<TrackInput, TrackMessage>>(true)
