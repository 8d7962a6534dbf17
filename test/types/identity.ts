// The identity rule of the wire spec, in the types: identify, track, page, screen and group need
// a userId or an anonymousId (or both); a message with neither does not compile.
import { Analytics, type Identity } from '../../src'
import { any } from './assert'

declare const analytics: Analytics

analytics.track({ userId: 'u1', event: 'A' })
analytics.track({ anonymousId: 'a1', event: 'A' })
analytics.track({ userId: 'u1', anonymousId: 'a1', event: 'A' })
// One of them may be null or undefined when the other is set.
analytics.track({ userId: null, anonymousId: 'a1', event: 'A' })
analytics.track({ userId: 'u1', anonymousId: undefined, event: 'A' })
// A value typed as either shape is accepted.
analytics.track({ ...any<Identity>(), event: 'A' })

// @ts-expect-error track with neither userId nor anonymousId
analytics.track({ event: 'A' })
// @ts-expect-error both null
analytics.track({ userId: null, anonymousId: null, event: 'A' })
// @ts-expect-error both undefined
analytics.track({ userId: undefined, anonymousId: undefined, event: 'A' })
// @ts-expect-error a userId that may be undefined does not prove an identity
analytics.track({ userId: any<string | undefined>(), event: 'A' })
// @ts-expect-error identify with neither
analytics.identify({ traits: { email: 'ada@example.com' } })
// @ts-expect-error page with neither
analytics.page({ name: 'Home' })
// @ts-expect-error screen with neither
analytics.screen({ name: 'Settings' })
// @ts-expect-error group with neither
analytics.group({ groupId: 'acme' })
// @ts-expect-error ids are strings or numbers
analytics.track({ userId: { id: 1 }, event: 'A' })

// The rule holds for a typed client too.
declare const typed: Analytics<{ 'Signed Up': { plan: string } }, { email: string }, { name: string }>
typed.track({ anonymousId: 'a1', event: 'Signed Up', properties: { plan: 'pro' } })
// @ts-expect-error typed track with neither
typed.track({ event: 'Signed Up', properties: { plan: 'pro' } })
// @ts-expect-error typed identify with neither
typed.identify({ traits: { email: 'ada@example.com' } })
// @ts-expect-error typed group with neither
typed.group({ groupId: 'acme', traits: { name: 'Acme' } })
