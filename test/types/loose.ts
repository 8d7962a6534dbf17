// Without type parameters, every method is as loose as the wire spec: any event name, any
// properties and traits, ids as strings or numbers. Only the spec's required fields are required.
import { Analytics, type Message, type TrackMessage } from '../../src'
import { expectType, type Equal } from './assert'

declare const analytics: Analytics

// Any event name and any properties.
analytics.track({ userId: 'u1', event: 'Anything At All', properties: { total: 9.5, tags: ['a'], at: new Date() } })
analytics.track({ anonymousId: 'a1', event: 'No Properties' })
analytics.track({ userId: 42, event: 'Numeric Id', properties: {} })
expectType<Equal<TrackMessage['event'], string>>(true)

// Every common field on every message.
analytics.track({
  userId: 'u1',
  event: 'Imported',
  timestamp: new Date('2021-11-19T00:00:00Z'),
  context: { ip: '203.0.113.9', locale: 'en-US', custom: { nested: true } },
  integrations: { All: false, Mixpanel: true, Amplitude: false },
  messageId: 'm-1',
})
// integrations values are booleans, whatever the key (the wire spec's rule).
// @ts-expect-error an options object is not a boolean
analytics.track({ userId: 'u1', event: 'Options', integrations: { Amplitude: { session: 1 } } })
analytics.track({ userId: 'u1', event: 'Iso Timestamp', timestamp: '2021-11-19T00:00:00Z' })

analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com', logins: 3, beta: true } })
analytics.identify({ anonymousId: 'a1' })
analytics.page({ userId: 'u1', name: 'Pricing', category: 'Docs', properties: { url: 'https://example.com', custom: 1 } })
analytics.screen({ anonymousId: 'a1', name: 'Settings', properties: { tab: 'privacy' } })
analytics.group({ userId: 'u1', groupId: 'acme', traits: { seats: 12 } })
analytics.group({ anonymousId: 'a1', groupId: 7 })
analytics.alias({ userId: 'u1', previousId: 'a1' })
analytics.track({ userId: 'u1', event: 'With Callback' }, (err, batch) => {
  expectType<Equal<typeof err, Error | undefined>>(true)
  expectType<Equal<typeof batch, Message[] | undefined>>(true)
})

// Calls chain and flush returns a promise.
analytics.track({ userId: 'u1', event: 'A' }).track({ userId: 'u1', event: 'B' })
expectType<Equal<ReturnType<typeof analytics.flush>, Promise<void>>>(true)

// The spec's required fields stay required.
// @ts-expect-error track needs "event"
analytics.track({ userId: 'u1' })
// @ts-expect-error "event" is a string
analytics.track({ userId: 'u1', event: 42 })
// @ts-expect-error group needs "groupId"
analytics.group({ userId: 'u1' })
// @ts-expect-error alias needs "previousId"
analytics.alias({ userId: 'u1' })
// @ts-expect-error alias needs "userId"
analytics.alias({ previousId: 'a1' })
// @ts-expect-error properties is an object
analytics.track({ userId: 'u1', event: 'A', properties: 'total=9' })
// @ts-expect-error timestamp is a Date or a string
analytics.track({ userId: 'u1', event: 'A', timestamp: 1637280000000 })
// @ts-expect-error integrations map names to booleans or option objects
analytics.track({ userId: 'u1', event: 'A', integrations: { Mixpanel: 'yes' } })
// @ts-expect-error the callback gets an Error, not a string
analytics.track({ userId: 'u1', event: 'A' }, (err: string) => err)
// @ts-expect-error unknown options are flagged
new Analytics('key', { flushEvery: 10 })
