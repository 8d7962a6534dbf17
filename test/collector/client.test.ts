import { Analytics, MessageTooLargeError, ValidationError } from 'eventrail'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'

// The eventrail client against the running collector: what the client sends is what the wire
// interface accepts.
let collector: Collector

beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['client-key'], destinations: ['Amplitude', 'Mixpanel'] })
})

afterEach(async () => {
  await collector.close()
})

describe('the eventrail client against the collector', () => {
  it('delivers all six kinds of message, each accepted', async () => {
    const analytics = new Analytics('client-key', { host: collector.url, flushAt: 20 })
    analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com' } })
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { total: 42 } })
    analytics.page({ anonymousId: 'a1', name: 'Pricing' })
    analytics.screen({ userId: 'u1', name: 'Settings' })
    analytics.group({ userId: 'u1', groupId: 'acme' })
    analytics.alias({ previousId: 'a1', userId: 'u1' })
    await analytics.flush()
    const types = collector.messages.map((r) => r.type).sort()
    expect(types).toEqual(['alias', 'group', 'identify', 'page', 'screen', 'track'])
    expect(collector.messages.every((r) => r.verdict === 'accepted' && r.writeKey === 'client-key')).toBe(true)
    expect(collector.messages.find((r) => r.type === 'alias')?.path).toBe('/v1/alias')
    expect(collector.messages.find((r) => r.type === 'track')?.path).toBe('/v1/batch')
    expect(collector.requests.every((r) => r.status === 200)).toBe(true)
  })

  it('sends gzip bodies (compress: true) that the collector accepts', async () => {
    const analytics = new Analytics('client-key', { host: collector.url, compress: true })
    analytics.track({ userId: 'u1', event: 'Compressed' })
    await analytics.flush()
    expect(collector.requests[0].headers['content-encoding']).toBe('gzip')
    expect(collector.messages[0]).toMatchObject({ verdict: 'accepted', message: { event: 'Compressed' } })
  })

  it('keeps the client’s timestamp, messageId and context.library, and applies its integrations', async () => {
    const analytics = new Analytics('client-key', { host: collector.url })
    analytics.track({ userId: 'u1', event: 'Picked', messageId: 'm-1', integrations: { All: false, Amplitude: true } })
    await analytics.flush()
    const record = collector.messages[0]
    expect(record.message).toMatchObject({ messageId: 'm-1', context: { library: { name: 'eventrail' } } })
    expect(typeof record.message.timestamp).toBe('string')
    expect(record.destinations).toEqual(['Amplitude'])
  })

  it('records a wrong write key as dropped while the client sees success (a 200)', async () => {
    const analytics = new Analytics('stale-key', { host: collector.url })
    analytics.identify({ userId: 'u1' })
    await expect(analytics.flush()).resolves.toBeUndefined()
    expect(collector.messages[0]).toMatchObject({ verdict: 'dropped', code: 'unknown_write_key', writeKey: 'stale-key' })
  })

  it('never sends what the client itself refuses: an invalid message and one over 32 KB', async () => {
    const analytics = new Analytics('client-key', { host: collector.url })
    const errors: Error[] = []
    analytics.track({ userId: 'u1' } as any, (err) => err && errors.push(err))
    analytics.track({ userId: 'u1', event: 'Huge', properties: { blob: 'x'.repeat(40_000) } }, (err) => err && errors.push(err))
    analytics.track({ userId: 'u1', event: 'Fine' })
    await analytics.flush()
    expect(errors.map((e) => e.constructor)).toEqual([ValidationError, MessageTooLargeError])
    expect(collector.messages.map((r) => r.message.event)).toEqual(['Fine'])
  })
})
