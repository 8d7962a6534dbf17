import * as http from 'node:http'
import { Analytics, ServiceUnavailableError, type AnalyticsOptions, type BreakerChange } from '../../src'
import { basicAuthorization } from '../../src/platform/transport'
import { startFaultServer, until, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Issue 32, part 6: `fallbackHosts`. Two services on 127.0.0.1: the primary (`host`) and a
// fallback. When the primary's outage breaker opens, requests go to the fallback; the primary is
// probed and takes the requests back once it answers; only when both are down do messages fail
// at once, as without a fallback. Outcomes and counts are asserted, never elapsed time.

const KEY = 'failover-key'
let primary: FaultServer
let fallback: FaultServer
let analytics: Analytics | undefined

afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  await Promise.all([primary?.close(), fallback?.close()])
})

/** Two services, each answering 500 while its `down` flag is set, else 200. */
async function twoServices(down: { primary: boolean; fallback: boolean }): Promise<typeof down> {
  primary = await startFaultServer(() => ({ kind: 'status', status: down.primary ? 500 : 200 }))
  fallback = await startFaultServer(() => ({ kind: 'status', status: down.fallback ? 500 : 200 }))
  return down
}

function client(options: AnalyticsOptions = {}): Analytics {
  analytics = new Analytics(KEY, { host: primary.url, fallbackHosts: [fallback.url], ...options })
  return analytics
}

function trackAll(a: Analytics, outcomes: Outcomes, from: number, to: number, prefix = 'f'): void {
  for (let i = from; i < to; i++) a.track(trackMessage(`${prefix}${i}`), outcomes.callback(`${prefix}${i}`))
}

/** How many times a message was accepted (2xx) by either service. */
const deliveries = (id: string): number => (primary.accepted.get(id) ?? 0) + (fallback.accepted.get(id) ?? 0)

describe('fallbackHosts', () => {
  it('primary down, fallback up: every message is delivered through the fallback, and nothing fails', async () => {
    await twoServices({ primary: true, fallback: false })
    const changes: BreakerChange[] = []
    const handled: Error[] = []
    const a = client({ errorHandler: (err) => handled.push(err) }).on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    trackAll(a, outcomes, 0, 100)
    await a.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(primary.accepted.size).toBe(0)
    for (let i = 0; i < 100; i++) expect(fallback.accepted.get(`f${i}`)).toBeGreaterThanOrEqual(1)
    expect(changes).toEqual([{ state: 'open', host: primary.url, error: expect.any(ServiceUnavailableError), activeHost: fallback.url }])
    expect((changes[0] as { error: Error }).error.message).toContain(`requests go to ${fallback.url}`)
    // A failover fails nothing: errorHandler hears no outage.
    expect(handled).toEqual([])
    expect(a.stats()).toMatchObject({
      sent: 100,
      failed: 0,
      breaker: 'closed',
      hosts: [
        { host: primary.url, state: expect.stringMatching(/open|probing/), active: false },
        { host: fallback.url, state: 'closed', active: true },
      ],
    })
    // The write key went to the fallback as to the primary: the user listed both.
    expect(fallback.requests.every((r) => r.headers.authorization === basicAuthorization(KEY))).toBe(true)
  }, 20_000)

  it('refused connections on the primary: delivered through the fallback', async () => {
    await twoServices({ primary: false, fallback: false })
    await primary.close()
    const a = client({ errorHandler: () => undefined })
    const outcomes = new Outcomes()
    trackAll(a, outcomes, 0, 50)
    await a.flush()
    expect(outcomes.errorNames()).toEqual({})
    expect(fallback.accepted.size).toBe(50)
  }, 20_000)

  it('a primary that takes requests and never answers: after two timeouts they go to the fallback; what it took arrives again there, nothing is lost', async () => {
    primary = await startFaultServer(() => ({ kind: 'hang' }))
    fallback = await startFaultServer()
    const changes: BreakerChange[] = []
    const a = client({ timeout: 300, errorHandler: () => undefined }).on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    trackAll(a, outcomes, 0, 40)
    await a.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 40; i++) expect(fallback.accepted.get(`f${i}`)).toBe(1)
    expect(changes.map(({ state, host, activeHost }) => ({ state, host, activeHost }))).toEqual([
      { state: 'open', host: primary.url, activeHost: fallback.url },
    ])
    // The requests in flight when the primary was given up were read there (never answered): the
    // documented duplicates, with the same messageIds, which a service can de-duplicate.
    const readByPrimary = new Set(primary.requests.flatMap((r) => r.messages.map((m: { messageId: string }) => m.messageId)))
    expect(readByPrimary.size).toBeGreaterThan(0)
    for (const id of readByPrimary) expect(fallback.accepted.get(id)).toBe(1)
  }, 20_000)

  it('primary back: a probe gets its answer and the traffic returns to it; nothing is lost', async () => {
    const down = await twoServices({ primary: true, fallback: false })
    const changes: BreakerChange[] = []
    const a = client({ errorHandler: () => undefined }).on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    trackAll(a, outcomes, 0, 50)
    await a.flush()
    expect(fallback.accepted.size).toBe(50)

    down.primary = false
    // Keep sending: a request's attempt probes the primary when its breaker allows one.
    let sent = 50
    await until(
      () => {
        trackAll(a, outcomes, sent, sent + 5)
        sent += 5
        return changes.some((c) => c.state === 'closed')
      },
      30_000,
      'the primary to take the traffic back',
    )
    await a.flush()
    expect(changes.map(({ state, host, activeHost }) => ({ state, host, activeHost }))).toEqual([
      { state: 'open', host: primary.url, activeHost: fallback.url },
      { state: 'closed', host: primary.url, activeHost: primary.url },
    ])
    // What comes after goes to the primary again.
    const before = fallback.accepted.size
    trackAll(a, outcomes, sent, sent + 20, 'after')
    await a.flush()
    for (let i = sent; i < sent + 20; i++) expect(primary.accepted.get(`after${i}`)).toBe(1)
    expect(fallback.accepted.size).toBe(before)
    // Nothing lost: every message accepted by one of the two, every callback once and without error.
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (const [id] of outcomes.entries()) expect(deliveries(id)).toBeGreaterThanOrEqual(1)
    expect(a.stats()).toMatchObject({
      breaker: 'closed',
      hosts: [
        { host: primary.url, state: 'closed', active: true },
        { host: fallback.url, state: 'closed', active: false },
      ],
    })
  }, 40_000)

  it('both down: every message fails at once with a ServiceUnavailableError, as without a fallback', async () => {
    await twoServices({ primary: true, fallback: true })
    const changes: BreakerChange[] = []
    const handled: Error[] = []
    const a = client({ errorHandler: (err) => handled.push(err) }).on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    trackAll(a, outcomes, 0, 100)
    await a.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ ServiceUnavailableError: 100 })
    expect(changes.map(({ state, host, activeHost }) => ({ state, host, activeHost }))).toEqual([
      { state: 'open', host: primary.url, activeHost: fallback.url },
      { state: 'open', host: fallback.url, activeHost: undefined },
    ])
    // The outage is reported once, when the last host goes down.
    expect(handled.map((e) => e.name)).toEqual(['ServiceUnavailableError'])
    expect(handled[0].message).toContain('and so is every fallback host')
    expect(a.stats()).toMatchObject({
      failed: 100,
      breaker: expect.stringMatching(/open|probing/),
      hosts: [
        { host: primary.url, state: expect.stringMatching(/open|probing/), active: false },
        { host: fallback.url, state: expect.stringMatching(/open|probing/), active: false },
      ],
    })
  }, 20_000)

  it('a redirect from a fallback host is refused: the write key never reaches the host it points to', async () => {
    const elsewhere: http.IncomingMessage[] = []
    const third = http.createServer((req, res) => {
      elsewhere.push(req)
      res.end()
    })
    await new Promise<void>((resolve) => third.listen(0, '127.0.0.1', resolve))
    const thirdUrl = `http://127.0.0.1:${(third.address() as { port: number }).port}`
    try {
      primary = await startFaultServer(() => ({ kind: 'status', status: 500 }))
      fallback = await startFaultServer(() => ({ kind: 'status', status: 307, headers: { location: `${thirdUrl}/v1/batch` } }))
      const a = client({ errorHandler: () => undefined })
      const outcomes = new Outcomes()
      trackAll(a, outcomes, 0, 20)
      await a.flush()
      expect(outcomes.notExactlyOnce()).toEqual([])
      expect(Object.keys(outcomes.errorNames())).toEqual(['DeliveryError'])
      expect((outcomes.get('f0')?.error as { reason?: string }).reason).toBe('redirect')
      expect(fallback.arrivals).toBeGreaterThan(0)
      expect(elsewhere).toHaveLength(0)
    } finally {
      await new Promise((resolve) => third.close(resolve))
    }
  }, 20_000)
})
