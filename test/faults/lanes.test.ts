import { Analytics, DeliveryError, MAX_BATCH_BYTES } from '../../src'
import { ADAPTIVE_IN_FLIGHT } from '../../src/config/options'
import { startTestServer, type TestServer } from '../helpers/test-server'
import { until, type FaultServer } from './fault-server'
import { faultSession } from './session'
import { Outcomes, trackMessage } from './outcomes'

// Delivery against a service that answers late, refuses large bodies or fails: lanes, adaptive
// concurrency and the 413 split, over real HTTP on 127.0.0.1. Unhandled rejections fail the test.

let testServers: TestServer[] = []
let clients: Analytics[] = []

afterEach(async () => {
  for (const c of clients) await c.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  clients = []
  for (const s of testServers) await s.close()
  testServers = []
})

const { server, client } = faultSession('lanes-key')

const TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const

/** Sends `count` messages of the six types in turn (1 in 6 an alias), each with messageId `m<i>`. */
function sendMixed(analytics: Analytics, outcomes: Outcomes, count: number, extra: Record<string, unknown> = {}): void {
  for (let i = 0; i < count; i++) {
    const id = `m${i}`
    const type = TYPES[i % TYPES.length]
    const base = { userId: `user-${i}`, messageId: id }
    const callback = outcomes.callback(id)
    if (type === 'alias') analytics.alias({ ...base, previousId: `anon-${i}` }, callback)
    else if (type === 'track') analytics.track({ ...base, event: 'Lane Test', properties: { i, ...extra } }, callback)
    else if (type === 'group') analytics.group({ ...base, groupId: 'g1' }, callback)
    else if (type === 'identify') analytics.identify({ ...base, traits: { i } }, callback)
    else if (type === 'page') analytics.page({ ...base, name: 'Home' }, callback)
    else analytics.screen({ ...base, name: 'Home' }, callback)
  }
}

describe('lanes', () => {
  it('gives every message of a mixed burst one outcome against a slow service: aliases alone, batches whole', async () => {
    const s = await server(() => ({ kind: 'delay', ms: 100 }))
    const analytics = client(s, { flushAt: 20 })
    const outcomes = new Outcomes()
    sendMixed(analytics, outcomes, 600)
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(s.accepted.size).toBe(600)
    const aliases = s.requests.filter((r) => r.path === '/v1/alias')
    const batches = s.requests.filter((r) => r.path === '/v1/batch')
    expect(aliases).toHaveLength(100)
    for (const r of aliases) expect(r.body).toMatchObject({ type: 'alias', previousId: expect.any(String), sentAt: expect.any(String) })
    for (const r of batches) {
      expect(r.raw.length).toBeLessThanOrEqual(MAX_BATCH_BYTES)
      expect(r.messages.every((m: any) => m.type !== 'alias')).toBe(true)
    }
    // The first message goes at once (rule 1); the 499 batchable messages after it fit one request.
    expect(batches).toHaveLength(2)
    expect(s.maxConcurrent).toBeLessThanOrEqual(64)
  })

  it('does not let an alias cut a batch short: the messages around it share one request', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 1000 })
    analytics.identify({ userId: 'first' })
    await analytics.flush()
    for (let i = 0; i < 50; i++) {
      analytics.track(trackMessage(`t${i}`))
      analytics.alias({ userId: `u${i}`, previousId: `a${i}` })
    }
    await analytics.flush()

    const batches = s.requests.filter((r) => r.path === '/v1/batch')
    expect(batches.map((r) => r.messages.length)).toEqual([1, 50])
    expect(batches[1].messages.map((m: any) => m.messageId)).toEqual(Array.from({ length: 50 }, (_, i) => `t${i}`))
    expect(s.requests.filter((r) => r.path === '/v1/alias')).toHaveLength(50)
  })

  it('keeps the order of each lane: batchable messages in one order, aliases started in theirs', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 7, maxInFlight: 1 })
    const outcomes = new Outcomes()
    sendMixed(analytics, outcomes, 120)
    await analytics.flush()

    const ids = (path: string) =>
      s.requests.filter((r) => r.path === path).flatMap((r) => r.messages.map((m: any) => Number(m.messageId.slice(1))))
    const increasing = (list: number[]) => list.every((n, k) => k === 0 || n > list[k - 1])
    expect(increasing(ids('/v1/batch'))).toBe(true)
    expect(increasing(ids('/v1/alias'))).toBe(true)
    expect(ids('/v1/batch')).toHaveLength(100)
    expect(ids('/v1/alias')).toHaveLength(20)
  })

  it('grows batches under backpressure: a request that frees a slot takes everything queued', async () => {
    let release!: () => void
    const gate = new Promise((resolve) => (release = () => resolve(undefined)))
    const s = await server((index) => (index === 0 ? { kind: 'gate', open: gate } : { kind: 'status', status: 200 }))
    const analytics = client(s, { flushAt: 5, maxInFlight: 1 })
    analytics.track(trackMessage('first'))
    await until(() => s.arrivals === 1)
    // Five flushAt groups queue up behind the one slot; when it frees, one request takes them all.
    for (let i = 0; i < 25; i++) analytics.track(trackMessage(`m${i}`))
    await new Promise((resolve) => setImmediate(resolve))
    release()
    await analytics.flush()
    expect(s.requests.map((r) => r.messages.length)).toEqual([1, 25])
  })
})

describe('adaptive concurrency', () => {
  const START = ADAPTIVE_IN_FLIGHT.requests.initial

  it('grows past its start while aliases wait and requests succeed, never past 64', async () => {
    const s = await server(() => ({ kind: 'delay', ms: 100 }))
    const analytics = client(s)
    const outcomes = new Outcomes()
    for (let i = 0; i < 300; i++) analytics.alias({ userId: `u${i}`, previousId: `a${i}`, messageId: `m${i}` }, outcomes.callback(`m${i}`))
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(s.accepted.size).toBe(300)
    expect(s.maxConcurrent).toBeGreaterThan(START)
    expect(s.maxConcurrent).toBeLessThanOrEqual(64)
    expect(analytics.stats().inFlightLimit).toBeGreaterThan(START)
  })

  it.each([429, 500, 503])('halves the limit once when a round of requests answers %i, then recovers', async (status) => {
    const s = await server((index) => (index < START ? { kind: 'delay', ms: 50, status } : { kind: 'status', status: 200 }))
    // The retries wait 1 s: the limit is read before their successes grow it again, on a loaded machine too.
    const analytics = client(s, { flushAt: 1, retryDelay: 1_000, maxRetryDelay: 1_000 })
    for (let i = 0; i < START; i++) analytics.alias({ userId: `u${i}`, previousId: `a${i}` })
    await until(() => s.requests.filter((r) => r.status === status).length === START)
    await until(() => analytics.stats().retried === START)
    // A round trip's worth of overload answers: one decrease, not one each.
    expect(analytics.stats().inFlightLimit).toBe(START / 2)
    await analytics.flush()
    expect(s.accepted.size).toBe(START)
  })

  it('shrinks on timeouts and resets too', async () => {
    const s = await server((index) => (index === 0 ? { kind: 'reset' } : { kind: 'status', status: 200 }))
    const analytics = client(s, { flushAt: 1 })
    analytics.track(trackMessage('m0'))
    await analytics.flush()
    expect(analytics.stats().inFlightLimit).toBe(START / 2)
    const slow = await server((index) => (index === 0 ? { kind: 'hang' } : { kind: 'status', status: 200 }))
    const other = client(slow, { flushAt: 1, timeout: 100 })
    other.track(trackMessage('m1'))
    await other.flush()
    expect(other.stats().inFlightLimit).toBe(START / 2)
    expect(slow.accepted.size).toBe(1)
  })

  it('converges on a service that serves 2 at a time without overshooting it (about one more per window after an overload)', async () => {
    // 503 at once beyond 2 requests in hand; each of those 2 answered after 10 ms.
    const s: FaultServer = await server(() => (s.concurrent >= 2 ? { kind: 'status', status: 503 } : { kind: 'delay', ms: 10 }))
    const analytics = client(s, { retryDelay: 50, maxRetryDelay: 1000 })
    const outcomes = new Outcomes()
    const count = 300
    for (let i = 0; i < count; i++)
      analytics.alias({ userId: `u${i}`, previousId: `a${i}`, messageId: `m${i}` }, outcomes.callback(`m${i}`))
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect([...s.accepted.values()].every((n) => n === 1)).toBe(true)
    expect(s.accepted.size).toBe(count)
    // +1 per success (slow start throughout) took ~3 attempts per message here.
    expect(s.arrivals).toBeLessThanOrEqual(2.2 * count)
    expect(analytics.stats().inFlightLimit).toBeLessThanOrEqual(4)
  })

  it('stays pinned at an explicit maxInFlight', async () => {
    const s = await server((index) => (index < 4 ? { kind: 'status', status: 503 } : { kind: 'delay', ms: 20 }))
    const analytics = client(s, { maxInFlight: 3, flushAt: 1 })
    for (let i = 0; i < 30; i++) analytics.track(trackMessage(`m${i}`))
    await analytics.flush()
    expect(analytics.stats().inFlightLimit).toBe(3)
    expect(s.maxConcurrent).toBe(3)
  })
})

describe('413: a body the service finds too large', () => {
  /** A server that answers 413 to any body over `limit` bytes, 200 to the rest. */
  async function limitedServer(limit: number): Promise<TestServer> {
    const s = await startTestServer((request) => (request.bytes > limit ? 413 : 200))
    testServers.push(s)
    return s
  }
  const accepted = (s: TestServer & { limit: number }) => s.requests.filter((r) => r.bytes <= s.limit)

  it('splits a refused batch in halves until every part is accepted, losing nothing', async () => {
    const s = Object.assign(await limitedServer(20 * 1024), { limit: 20 * 1024 })
    const analytics = new Analytics('lanes-key', { host: s.url, flushAt: 1000 })
    clients.push(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('first'), outcomes.callback('first'))
    for (let i = 0; i < 100; i++) analytics.track(trackMessage(`m${i}`, { pad: 'x'.repeat(1000) }), outcomes.callback(`m${i}`))
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    const ids = accepted(s).flatMap((r) => r.body.batch.map((m: any) => m.messageId))
    expect(ids.sort()).toEqual(['first', ...Array.from({ length: 100 }, (_, i) => `m${i}`)].sort())
    // 100 messages of ~1.1 KB: refused at ~110 KB, ~55 KB and ~27 KB, accepted at ~14 KB. No loop.
    const sizes = (list: typeof s.requests) => list.map((r) => r.body.batch.length).sort((a: number, b: number) => a - b)
    expect(sizes(s.requests.filter((r) => r.bytes > s.limit))).toEqual([25, 25, 25, 25, 50, 50, 100])
    expect(sizes(accepted(s))).toEqual([1, 12, 12, 12, 12, 13, 13, 13, 13])
  })

  it('fails a single message the service still refuses, naming its size, and delivers its neighbours', async () => {
    const s = Object.assign(await limitedServer(2048), { limit: 2048 })
    const analytics = new Analytics('lanes-key', { host: s.url, flushAt: 1000 })
    clients.push(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('first'), outcomes.callback('first'))
    analytics.track(trackMessage('small-1'), outcomes.callback('small-1'))
    analytics.track(trackMessage('big', { pad: 'x'.repeat(3000) }), outcomes.callback('big'))
    analytics.track(trackMessage('small-2'), outcomes.callback('small-2'))
    analytics.alias({ userId: 'u1', previousId: 'x'.repeat(3000), messageId: 'big-alias' }, outcomes.callback('big-alias'))
    await analytics.flush().catch(() => undefined)

    expect(outcomes.notExactlyOnce()).toEqual([])
    const ids = accepted(s).flatMap((r) => (r.path === '/v1/batch' ? r.body.batch : [r.body]).map((m: any) => m.messageId))
    expect(ids.sort()).toEqual(['first', 'small-1', 'small-2'])
    const error = outcomes.get('big')?.error as DeliveryError
    expect(error).toBeInstanceOf(DeliveryError)
    expect(error.status).toBe(413)
    expect(error.message).toMatch(
      /^\/v1\/batch: the service refused the message as too large \(413\) in a request of its own: \d+ bytes \(\d+ bytes of JSON\)$/,
    )
    const aliasError = outcomes.get('big-alias')?.error as DeliveryError
    expect(aliasError.message).toMatch(/^\/v1\/alias: the service refused the alias as too large \(413\)/)
    // Each refused single message was sent once: a 413 is not retried, and one message is not split.
    expect(s.requests.filter((r) => r.path === '/v1/alias')).toHaveLength(1)
  })
})

describe('batches in flight', () => {
  it('sends at most 4 batches to a service that holds every request, however much is queued', async () => {
    let release!: () => void
    const gate = new Promise((resolve) => (release = () => resolve(undefined)))
    const s = await server(() => ({ kind: 'gate', open: gate }))
    const analytics = client(s)
    const outcomes = new Outcomes()
    // ~6 MB of tracks: a dozen full batches wait, but nothing has succeeded: the batch limit stays at its start.
    for (let i = 0; i < 6000; i++) analytics.track(trackMessage(`m${i}`, { pad: 'x'.repeat(900) }), outcomes.callback(`m${i}`))
    const flushed = analytics.flush()
    await until(() => s.arrivals === 4)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(s.arrivals).toBe(4)
    release()
    await flushed
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(s.accepted.size).toBe(6000)
  })
})
