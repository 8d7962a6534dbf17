import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'

// Another client that speaks the wire format: plain fetch, bodies exactly as the wire spec gives
// them (no messageId, no sentAt, no context.library), Basic auth built by hand.
const WRITE_KEY = 'other-client-key'
const AUTH = 'Basic ' + btoa(`${WRITE_KEY}:`)
let collector: Collector

beforeAll(async () => {
  collector = await createCollector({ writeKeys: [WRITE_KEY], destinations: ['Amplitude', 'Mixpanel'] })
})

afterAll(async () => {
  await collector.close()
})

beforeEach(() => collector.clear())

async function send(path: string, body: unknown): Promise<number> {
  const response = await fetch(`${collector.url}${path}`, {
    method: 'POST',
    headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  await response.arrayBuffer()
  return response.status
}

describe('messages from another client of the wire format', () => {
  it.each([
    ['/v1/identify', { userId: '019mr8mf4r', traits: { email: 'pgibbons@example.com', name: 'Peter Gibbons' } }],
    ['/v1/track', { userId: '019mr8mf4r', event: 'Item Purchased', properties: { name: 'Leap to Conclusions Mat', revenue: 14.99 } }],
    [
      '/v1/page',
      {
        anonymousId: '507f191e810c19729de860ea',
        name: 'Docs',
        properties: { url: 'https://example.com/docs', referrer: 'https://google.com' },
      },
    ],
    ['/v1/screen', { userId: '019mr8mf4r', name: 'Home', context: { device: { type: 'ios', name: 'iPhone' } } }],
    ['/v1/group', { userId: '019mr8mf4r', groupId: '8e9df332ac', traits: { name: 'Initech', industry: 'Technology' } }],
    ['/v1/alias', { previousId: '507f191e810c19729de860ea', userId: '019mr8mf4r' }],
  ])('accepts %s', async (path, body) => {
    expect(await send(path, body)).toBe(200)
    expect(collector.messages).toHaveLength(1)
    expect(collector.messages[0]).toMatchObject({ verdict: 'accepted', writeKey: WRITE_KEY, message: body })
  })

  it('accepts a batch with an envelope context and integrations', async () => {
    const status = await send('/v1/batch', {
      batch: [
        { type: 'identify', userId: '019mr8mf4r', traits: { plan: 'Enterprise' } },
        { type: 'track', userId: '019mr8mf4r', event: 'Signed Up', timestamp: '2015-02-23T22:28:55.111Z' },
        { type: 'page', anonymousId: '507f191e810c19729de860ea', name: 'Pricing' },
        { type: 'screen', userId: '019mr8mf4r', name: 'Settings' },
        { type: 'group', userId: '019mr8mf4r', groupId: '8e9df332ac' },
      ],
      context: { device: { type: 'phone', name: 'Apple iPhone 6' } },
      integrations: { All: false, Mixpanel: true },
    })
    expect(status).toBe(200)
    expect(collector.messages.map((r) => r.verdict)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted'])
    expect(collector.messages.every((r) => (r.message.context as any).device.name === 'Apple iPhone 6')).toBe(true)
    expect(collector.messages.map((r) => r.destinations)).toEqual([['Mixpanel'], ['Mixpanel'], ['Mixpanel'], ['Mixpanel'], ['Mixpanel']])
    expect(collector.messages[1].historical).toBe(true)
  })

  it('accepts context.direct from a device and records its IP', async () => {
    expect(await send('/v1/track', { anonymousId: 'a1', event: 'Opened', context: { direct: true, locale: 'en-US' } })).toBe(200)
    expect(collector.messages[0].message.context).toEqual({ direct: true, locale: 'en-US', ip: '127.0.0.1' })
  })
})
