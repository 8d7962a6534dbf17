// The recorder of eventrail/testing is typed by the same catalog as the client.
import type { Message, Properties } from '../../src'
import { Recorder, type RecordedRequest, type WireTrack } from '../../src/testing'
import { expectType, type Equal, type MutuallyAssignable } from './assert'

interface ShopEvents {
  'Order Completed': { orderId: string; total: number }
  'Signed Up': { plan: 'free' | 'pro' }
}

const recorder = new Recorder<ShopEvents, { email: string }, { seats: number }>()
const [order] = recorder.tracks('Order Completed')
expectType<Equal<typeof order.event, 'Order Completed'>>(true)
expectType<Equal<typeof order.properties, { orderId: string; total: number } | undefined>>(true)
expectType<Equal<ReturnType<typeof recorder.tracks>[number]['event'], keyof ShopEvents>>(true)
expectType<Equal<ReturnType<typeof recorder.ofType<'identify'>>[number]['traits'], { email: string } | undefined>>(true)
expectType<Equal<ReturnType<typeof recorder.ofType<'group'>>[number]['groupId'], string>>(true)
expectType<Equal<typeof recorder.messages, Message[]>>(true)
expectType<Equal<typeof recorder.requests, readonly RecordedRequest[]>>(true)

// @ts-expect-error an event that is not in the catalog
recorder.tracks('Order Placed')
// @ts-expect-error recorder.find filters by known fields
recorder.find({ colour: 'red' })
// @ts-expect-error message types are the six of the spec
recorder.ofType('event')

// Untyped, any event name goes and properties are loose.
const loose = new Recorder()
const [whatever] = loose.tracks('Whatever')
expectType<Equal<typeof whatever.event, 'Whatever'>>(true)
expectType<Equal<ReturnType<typeof loose.tracks>[number]['event'], string>>(true)
expectType<MutuallyAssignable<typeof whatever.properties, Properties | undefined>>(true)
export const typedAsWire: WireTrack = whatever
