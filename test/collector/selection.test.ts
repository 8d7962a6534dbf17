import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'
import { post } from './helpers'

// Destination selection over real HTTP: each rule of the wire spec, as the collector records it.
let collector: Collector

beforeAll(async () => {
  collector = await createCollector({
    destinations: ['Amplitude', 'Google Analytics', 'Mixpanel'],
    historicalDestinations: ['Amplitude', 'Mixpanel'],
  })
})

afterAll(async () => {
  await collector.close()
})

beforeEach(() => collector.clear())

async function destinationsOf(path: string, body: Record<string, unknown>) {
  expect((await post(collector.url, path, body)).status).toBe(200)
  const record = collector.messages[collector.messages.length - 1]
  expect(record.verdict).toBe('accepted')
  return { destinations: record.destinations, historical: record.historical }
}

describe('destination selection (integrations)', () => {
  it.each([
    ['by default every destination', undefined, ['Amplitude', 'Google Analytics', 'Mixpanel']],
    ['a destination set to false is left out', { Mixpanel: false }, ['Amplitude', 'Google Analytics']],
    ['names are case-sensitive', { mixpanel: false, 'google analytics': false }, ['Amplitude', 'Google Analytics', 'Mixpanel']],
    ['All: false keeps only those set to true', { All: false, 'Google Analytics': true }, ['Google Analytics']],
    ['All: false alone disables every destination', { All: false }, []],
    ['All: true with one false', { All: true, Amplitude: false }, ['Google Analytics', 'Mixpanel']],
    ['an options object enables its destination', { All: false, Amplitude: { sessionId: 3 } }, ['Amplitude']],
  ])('%s', async (_rule, integrations, expected) => {
    const body = { userId: 'u1', event: 'E', ...(integrations ? { integrations } : {}) }
    expect(await destinationsOf('/v1/track', body)).toEqual({ destinations: expected, historical: false })
  })

  it.each(['/v1/identify', '/v1/page', '/v1/screen', '/v1/group', '/v1/alias'])('applies to %s messages too', async (path) => {
    const body = { userId: 'u1', previousId: 'a1', groupId: 'g1', integrations: { All: false, Mixpanel: true } }
    expect((await destinationsOf(path, body)).destinations).toEqual(['Mixpanel'])
  })

  it('applies the batch envelope integrations to each item, the item’s own keys winning', async () => {
    await post(collector.url, '/v1/batch', {
      integrations: { All: false, Amplitude: true },
      batch: [
        { type: 'track', userId: 'u1', event: 'A' },
        { type: 'track', userId: 'u1', event: 'B', integrations: { Amplitude: false, Mixpanel: true } },
      ],
    })
    expect(collector.messages.map((r) => r.destinations)).toEqual([['Amplitude'], ['Mixpanel']])
  })

  it('sends a historical message only to destinations that take historical data', async () => {
    const body = { userId: 'u1', event: 'Imported', timestamp: '2021-11-19T09:00:00.000Z' }
    expect(await destinationsOf('/v1/track', body)).toEqual({ destinations: ['Amplitude', 'Mixpanel'], historical: true })
  })

  it('combines integrations with the historical rule', async () => {
    const body = { userId: 'u1', event: 'Imported', timestamp: '2021-11-19T09:00:00.000Z', integrations: { Mixpanel: false } }
    expect(await destinationsOf('/v1/track', body)).toEqual({ destinations: ['Amplitude'], historical: true })
  })

  it('does not count a message stamped a moment ago as historical', async () => {
    const body = { userId: 'u1', event: 'Live', timestamp: new Date(Date.now() - 1000).toISOString() }
    expect(await destinationsOf('/v1/track', body)).toEqual({
      destinations: ['Amplitude', 'Google Analytics', 'Mixpanel'],
      historical: false,
    })
  })

  it('lets every destination take historical data when historicalDestinations is not set', async () => {
    const open = await createCollector({ destinations: ['Amplitude', 'Google Analytics'] })
    try {
      await post(open.url, '/v1/track', { userId: 'u1', event: 'Imported', timestamp: '2021-11-19T09:00:00.000Z' })
      expect(open.messages[0]).toMatchObject({ destinations: ['Amplitude', 'Google Analytics'], historical: true })
    } finally {
      await open.close()
    }
  })
})
