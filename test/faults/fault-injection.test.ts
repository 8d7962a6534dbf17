import { Analytics, DeliveryError, TimeoutError, type AnalyticsOptions, type DropInfo, type RetryInfo } from '../../src'
import { startFaultServer, until, type Fault, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

const MESSAGES = 10_000

/** A seeded PRNG (mulberry32): the same faults on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * About 40 % of requests fail: 500, 503, 429 with Retry-After (0 s, or rarely 1 s, or an HTTP
 * date in the past), a connection reset before the body is read, or no answer at all (hang,
 * past the client's timeout). The choice depends only on the request's number.
 */
function chaos(seed: number): (index: number) => Fault {
  const random = seeded(seed)
  const plan: Fault[] = []
  return (index) => {
    while (plan.length <= index) {
      const r = random()
      plan.push(
        r < 0.1
          ? { kind: 'status', status: 500 }
          : r < 0.18
            ? { kind: 'status', status: 503 }
            : r < 0.24
              ? { kind: 'status', status: 429, headers: { 'Retry-After': '0' } }
              : r < 0.245
                ? { kind: 'status', status: 429, headers: { 'Retry-After': '1' } }
                : r < 0.26
                  ? { kind: 'status', status: 429, headers: { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' } }
                  : r < 0.33
                    ? { kind: 'reset' }
                    : r < 0.36
                      ? { kind: 'hang' }
                      : r < 0.38
                        ? { kind: 'status', status: 502 }
                        : r < 0.4
                          ? { kind: 'status', status: 408 }
                          : { kind: 'status', status: 200 },
      )
    }
    return plan[index]
  }
}

// timeout: long enough that a loaded machine's slow 200 is rarely taken for a hang; a 200 the
// client did time out is sent again (the same messageId), so duplicates are allowed.
const FAST: AnalyticsOptions = { flushAt: 20, timeout: 1_000, retryDelay: 2, maxRetryDelay: 20, maxInFlight: 8 }

let server: FaultServer
let analytics: Analytics | undefined

afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  await server.close()
})

/**
 * Tracks every message (with a few alias, identify, page, screen and group among them) in waves
 * of 25 a millisecond apart, so that requests run meanwhile and stay small: hundreds of requests.
 */
async function sendAll(client: Analytics, outcomes: Outcomes): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < MESSAGES; i++) {
    const id = `m${i}`
    ids.push(id)
    const callback = outcomes.callback(id)
    const kind = i % 250
    if (kind === 1) client.alias({ previousId: `anon-${i}`, userId: `user-${i}`, messageId: id }, callback)
    else if (kind === 2) client.identify({ userId: `user-${i}`, traits: { i }, messageId: id }, callback)
    else if (kind === 3) client.page({ anonymousId: `anon-${i}`, name: 'Home', messageId: id }, callback)
    else if (kind === 4) client.screen({ userId: `user-${i}`, name: 'Settings', messageId: id }, callback)
    else if (kind === 5) client.group({ userId: `user-${i}`, groupId: 'g1', messageId: id }, callback)
    else client.track(trackMessage(id, { i }), callback)
    if (i % 25 === 24) await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return ids
}

/** Messages of one request keep the order in which they were tracked. */
function requestsKeepOrder(s: FaultServer): boolean {
  return s.requests.every((request) => {
    const order = request.messages.map((m: any) => Number(String(m.messageId).slice(1)))
    return order.every((n: number, k: number) => k === 0 || n > order[k - 1])
  })
}

describe('fault injection: 10,000 messages against a server that fails 40 % of requests', () => {
  it('delivers every message and calls every callback exactly once, without an error, when retries are enough', async () => {
    server = await startFaultServer(chaos(42))
    analytics = new Analytics('fault-key', { host: server.url, ...FAST, maxRetries: 60, maxRetryTime: 30_000 })
    const retries: RetryInfo[] = []
    analytics.on('retry', (info) => retries.push(info))
    const outcomes = new Outcomes()
    const ids = await sendAll(analytics, outcomes)
    await analytics.flush()

    // Every fault kind was met.
    const seen = new Set(server.requests.map((r) => r.status))
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 408, 429, 500, 502, 503, undefined]))
    expect(server.arrivals).toBeGreaterThan(server.requests.length) // resets
    expect(server.arrivals).toBeGreaterThan(300) // hundreds of requests, not a few big ones
    // Every hung request was given up by the client (its timeout), none is left open.
    await until(() => server.concurrent === 0, 5_000, 'hung requests to be closed by the client')

    expect(outcomes.settled).toBe(MESSAGES)
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(ids.filter((id) => !server.accepted.has(id))).toEqual([])
    expect(server.accepted.size).toBe(MESSAGES)
    expect(requestsKeepOrder(server)).toBe(true)

    // Every attempt was either the request's last (delivered) or followed by a retry.
    const stats = analytics.stats()
    expect(stats).toMatchObject({ queued: 0, inFlight: 0, sent: MESSAGES, failed: 0, dropped: 0 })
    expect(stats.retried).toBe(retries.length)
    expect(stats.requests + stats.retried).toBe(server.arrivals)
  }, 60_000)

  it('gives every message exactly one outcome, delivered or a DeliveryError, when retries run out', async () => {
    server = await startFaultServer(chaos(7))
    analytics = new Analytics('fault-key', { host: server.url, ...FAST, maxRetries: 1, errorHandler: () => undefined })
    const drops: DropInfo[] = []
    analytics.on('drop', (info) => drops.push(info))
    const outcomes = new Outcomes()
    const ids = await sendAll(analytics, outcomes)
    await analytics.flush()

    expect(outcomes.settled).toBe(MESSAGES)
    expect(outcomes.notExactlyOnce()).toEqual([])
    const failed = ids.filter((id) => outcomes.get(id)?.error !== undefined)
    const delivered = ids.filter((id) => outcomes.get(id)?.error === undefined)
    // With one retry and 40 % faults, some requests fail twice in a row.
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.every((id) => outcomes.get(id)?.error instanceof DeliveryError)).toBe(true)
    // A success is always a message the server took. (A failure may have been taken too: an
    // answer that came after the client's timeout.)
    expect(delivered.filter((id) => !server.accepted.has(id))).toEqual([])
    expect(server.accepted.size).toBe(delivered.length)
    expect(requestsKeepOrder(server)).toBe(true)

    expect(analytics.stats()).toMatchObject({ queued: 0, inFlight: 0, sent: delivered.length, failed: failed.length, dropped: 0 })
    expect(drops.reduce((sum, d) => sum + d.count, 0)).toBe(failed.length)
  }, 60_000)

  it('gives every message exactly one outcome when closeAndFlush({ timeout }) cuts the faults short', async () => {
    // Mostly hangs: most requests are still out when the deadline passes.
    server = await startFaultServer((index) => (index % 5 === 0 ? { kind: 'status', status: 200 } : { kind: 'hang' }))
    analytics = new Analytics('fault-key', { host: server.url, ...FAST, timeout: 100, maxRetries: 100, errorHandler: () => undefined })
    const outcomes = new Outcomes()
    const ids = await sendAll(analytics, outcomes)
    await analytics.closeAndFlush({ timeout: 500 })

    expect(outcomes.settled).toBe(MESSAGES)
    expect(outcomes.notExactlyOnce()).toEqual([])
    const errors = outcomes.errorNames()
    // Cut short by the deadline, or failed at once when the hangs opened the outage breaker.
    expect((errors.TimeoutError ?? 0) + (errors.ServiceUnavailableError ?? 0)).toBeGreaterThan(0)
    expect(Object.keys(errors).every((name) => ['TimeoutError', 'DeliveryError', 'ServiceUnavailableError'].includes(name))).toBe(true)
    // A message reported delivered reached the server.
    const delivered = ids.filter((id) => outcomes.get(id)?.error === undefined)
    expect(delivered.filter((id) => !server.accepted.has(id))).toEqual([])
    expect(ids.filter((id) => outcomes.get(id)?.error instanceof TimeoutError).length).toBe(errors.TimeoutError ?? 0)
    expect(analytics.stats()).toMatchObject({ queued: 0, inFlight: 0 })
  }, 60_000)
})
