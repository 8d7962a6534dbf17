import { Analytics, DeliveryError, LIBRARY_NAME, VERSION } from '../../src'
import type { AnalyticsOptions } from '../../src'
import { Recorder, type RecorderOptions } from '../../src/testing'

function recorded(options: RecorderOptions = {}, clientOptions: AnalyticsOptions = {}) {
  const recorder = new Recorder(options)
  const analytics = new Analytics('test-write-key', { fetch: recorder.fetch, retryDelay: 0, ...clientOptions })
  return { recorder, analytics }
}

let unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => process.off('unhandledRejection', onUnhandled))
beforeEach(() => {
  unhandled = []
})
afterEach(() => expect(unhandled).toEqual([]))

describe('Recorder', () => {
  it('records every message exactly as the request body carried it', async () => {
    const { recorder, analytics } = recorded()
    analytics.identify({ userId: 42, traits: { plan: 'pro' } })
    analytics.track({ anonymousId: 'a1', event: 'Signed Up', properties: { source: 'ad' } })
    analytics.page({ userId: 'u1', name: 'Pricing' })
    analytics.screen({ userId: 'u1', name: 'Settings' })
    analytics.group({ userId: 'u1', groupId: 7, traits: { seats: 3 } })
    analytics.alias({ userId: 'u1', previousId: 'a1' })
    await analytics.flush()

    const fromBodies = recorder.requests.flatMap((r) => {
      const body = JSON.parse(r.body)
      return r.path === '/v1/batch' ? body.batch : [body]
    })
    expect(recorder.messages).toEqual(fromBodies)
    expect(recorder.messages.map((m) => m.type)).toEqual(['identify', 'track', 'page', 'screen', 'group', 'alias'])
    for (const message of recorder.messages) {
      expect(message.messageId).toEqual(expect.any(String))
      expect(Number.isNaN(Date.parse(message.timestamp))).toBe(false)
      expect(message.context.library).toEqual({ name: LIBRARY_NAME, version: VERSION })
    }
    // Numeric ids go on the wire as strings.
    expect(recorder.ofType('identify')[0].userId).toBe('42')
    expect(recorder.ofType('group')[0].groupId).toBe('7')
  })

  it('records the URL, path, method, headers, write key and sentAt of each request', async () => {
    const { recorder, analytics } = recorded({}, { host: 'https://collector.test/prefix' })
    analytics.track({ userId: 'u1', event: 'A' })
    analytics.alias({ userId: 'u1', previousId: 'a1' })
    await analytics.flush()

    const paths = recorder.requests.map((r) => r.path).sort()
    expect(paths).toEqual(['/prefix/v1/alias', '/prefix/v1/batch'])
    for (const request of recorder.requests) {
      expect(request.url).toBe('https://collector.test' + request.path)
      expect(request.method).toBe('POST')
      expect(request.headers['Content-Type']).toBe('application/json')
      expect(request.writeKey).toBe('test-write-key')
      expect(request.status).toBe(200)
      expect(request.sentAt).toBe(JSON.parse(request.body).sentAt)
    }
    // The alias body is the message itself, so its sentAt is part of the message on the wire.
    expect(recorder.ofType('alias')[0].sentAt).toEqual(expect.any(String))
  })

  it('decodes gzip-compressed bodies', async () => {
    const { recorder, analytics } = recorded({}, { compress: true })
    analytics.track({ userId: 'u1', event: 'Compressed', properties: { text: 'é'.repeat(100) } })
    await analytics.flush()

    expect(recorder.requests[0].headers['Content-Encoding']).toBe('gzip')
    expect(recorder.tracks('Compressed')[0].properties).toEqual({ text: 'é'.repeat(100) })
  })

  it('selects messages by type, event, filter, predicate and recency', async () => {
    const { recorder, analytics } = recorded()
    analytics.track({ userId: 1, event: 'Viewed' })
    analytics.track({ userId: 2, event: 'Bought', properties: { total: 5 } })
    analytics.track({ userId: 1, event: 'Bought', properties: { total: 9 } })
    analytics.page({ userId: 1, name: 'Home' })
    await analytics.flush()

    expect(recorder.tracks()).toHaveLength(3)
    expect(recorder.tracks('Bought').map((m) => m.properties?.total)).toEqual([5, 9])
    expect(recorder.tracks('Nothing')).toEqual([])
    expect(recorder.ofType('page').map((m) => m.name)).toEqual(['Home'])
    expect(recorder.find({ userId: 1 })).toHaveLength(3)
    expect(recorder.find({ type: 'track', userId: '1', event: 'Bought' })).toHaveLength(1)
    expect(recorder.find((m) => m.type === 'track' && (m.properties as { total?: number })?.total === 5)).toHaveLength(1)
    expect(recorder.last()?.type).toBe('page')
    expect(recorder.last({ event: 'Bought' })?.userId).toBe('1')
    expect(recorder.last({ event: 'Nothing' })).toBeUndefined()
  })

  it('clear() forgets what was recorded; later messages are recorded again', async () => {
    const { recorder, analytics } = recorded()
    analytics.track({ userId: 'u1', event: 'Before' })
    await analytics.flush()
    const before = recorder.requests
    recorder.clear()
    expect(recorder.requests).toEqual([])
    expect(recorder.messages).toEqual([])
    expect(before).toHaveLength(1) // arrays handed out earlier are snapshots

    analytics.track({ userId: 'u1', event: 'After' })
    await analytics.flush()
    expect(recorder.tracks().map((m) => m.event)).toEqual(['After'])
  })

  it('answers with the status it is given, so an app can be tested against failures', async () => {
    const { recorder, analytics } = recorded({ respond: 400 })
    const errors: Error[] = []
    analytics.track({ userId: 'u1', event: 'Refused' }, (err) => err && errors.push(err))
    await expect(analytics.flush()).rejects.toBeInstanceOf(DeliveryError)

    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(DeliveryError)
    expect((errors[0] as DeliveryError).status).toBe(400)
    expect(recorder.requests.map((r) => r.status)).toEqual([400])
    expect(recorder.messages).toEqual([]) // nothing was accepted
  })

  it('records every attempt of a retried request and its messages once', async () => {
    const { recorder, analytics } = recorded({ respond: (_request, index) => (index < 2 ? 503 : 200) })
    analytics.track({ userId: 'u1', event: 'Retried' })
    await analytics.flush()

    expect(recorder.requests.map((r) => r.status)).toEqual([503, 503, 200])
    expect(new Set(recorder.requests.map((r) => r.body)).size).toBe(1) // the same body each time
    expect(recorder.tracks('Retried')).toHaveLength(1)
  })

  it('fails a request like a network error when it is given an Error', async () => {
    const { recorder, analytics } = recorded({ respond: new Error('ECONNRESET') }, { maxRetries: 0 })
    await expect(analytics.flush()).resolves.toBeUndefined()
    analytics.track({ userId: 'u1', event: 'Lost' })
    const outcome = analytics.flush()
    await expect(outcome).rejects.toBeInstanceOf(DeliveryError)
    expect(recorder.requests.map((r) => r.status)).toEqual([0])
  })

  it('respondWith() changes the answer of later requests', async () => {
    const { recorder, analytics } = recorded({}, { maxRetries: 0, errorHandler: () => undefined })
    analytics.track({ userId: 'u1', event: 'One' })
    await analytics.flush()
    recorder.respondWith(500)
    analytics.track({ userId: 'u1', event: 'Two' })
    await analytics.flush()

    expect(recorder.requests.map((r) => r.status)).toEqual([200, 500])
    expect(recorder.tracks().map((m) => m.event)).toEqual(['One'])
  })

  it('leaves nothing running: no timer, socket or handle after flush()', async () => {
    const { recorder, analytics } = recorded()
    const before = countByKind(process.getActiveResourcesInfo())
    analytics.track({ userId: 'u1', event: 'A' })
    analytics.track({ userId: 'u1', event: 'B' })
    await analytics.flush()
    await analytics.closeAndFlush()

    expect(countByKind(process.getActiveResourcesInfo())).toEqual(before)
    expect(recorder.tracks()).toHaveLength(2)
  })
})

function countByKind(kinds: string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}
