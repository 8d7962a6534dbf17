import { Analytics, DeliveryError, TimeoutError, type AnalyticsOptions, type RetryInfo } from '../../src'
import { startFaultServer, until, type Fault, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

let server: FaultServer
let clients: Analytics[] = []

afterEach(async () => {
  for (const client of clients) await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  clients = []
  await server?.close()
})

function client(options: AnalyticsOptions = {}): Analytics {
  const analytics = new Analytics('fault-key', {
    host: server.url,
    flushAt: 1,
    retryDelay: 1,
    maxRetryDelay: 5,
    timeout: 2_000,
    ...options,
  })
  clients.push(analytics)
  return analytics
}

/** Answers `first` for the first `times` requests, then 200. */
function failFirst(times: number, first: Fault): (index: number) => Fault {
  return (index) => (index < times ? first : { kind: 'status', status: 200 })
}

function retriesOf(analytics: Analytics): RetryInfo[] {
  const retries: RetryInfo[] = []
  analytics.on('retry', (info) => retries.push(info))
  return retries
}

describe('which failures are retried', () => {
  it.each([500, 502, 503, 504, 429, 408])('retries a %i answer and then delivers', async (status) => {
    server = await startFaultServer(failFirst(1, { kind: 'status', status }))
    const analytics = client()
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await analytics.flush()

    expect(server.requests.map((r) => r.status)).toEqual([status, 200])
    expect(outcomes.get('m1')).toEqual({ calls: 1, error: undefined })
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ path: '/v1/batch', attempt: 1, status })
    expect(analytics.stats()).toMatchObject({ sent: 1, failed: 0, retried: 1, requests: 1 })
  })

  it.each([400, 401, 403, 404, 413, 501, 505])(
    'does not retry a %i answer: the message fails with a DeliveryError carrying the status',
    async (status) => {
      server = await startFaultServer(() => ({ kind: 'status', status }))
      const analytics = client({ maxRetries: 5 })
      const retries = retriesOf(analytics)
      const outcomes = new Outcomes()
      analytics.track(trackMessage('m1'), outcomes.callback('m1'))
      await expect(analytics.flush()).rejects.toBeInstanceOf(DeliveryError)

      expect(server.arrivals).toBe(1)
      expect(retries).toHaveLength(0)
      const { calls, error } = outcomes.get('m1')!
      expect(calls).toBe(1)
      expect(error).toBeInstanceOf(DeliveryError)
      expect(error).toMatchObject({ status, attempts: 1 })
      expect(analytics.stats()).toMatchObject({ sent: 0, failed: 1, retried: 0, requests: 0 })
    },
  )

  it('retries a connection reset mid-request and then delivers', async () => {
    server = await startFaultServer(failFirst(2, { kind: 'reset' }))
    const analytics = client()
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await analytics.flush()

    expect(server.arrivals).toBe(3)
    expect(server.accepted.get('m1')).toBe(1)
    expect(outcomes.get('m1')).toEqual({ calls: 1, error: undefined })
    expect(retries.map((r) => r.status)).toEqual([undefined, undefined])
    expect(retries.every((r) => r.error instanceof Error)).toBe(true)
  })

  it('retries a refused connection and fails with a DeliveryError once maxRetries are spent', async () => {
    server = await startFaultServer()
    await server.close()
    const analytics = client({ maxRetries: 2 })
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await expect(analytics.flush()).rejects.toBeInstanceOf(DeliveryError)

    expect(retries).toHaveLength(2)
    const { calls, error } = outcomes.get('m1')!
    expect(calls).toBe(1)
    expect(error).toBeInstanceOf(DeliveryError)
    expect((error as DeliveryError).attempts).toBe(3)
    expect((error as DeliveryError).status).toBeUndefined()
    expect(error?.cause).toBeInstanceOf(Error)
  })

  it('makes exactly maxRetries + 1 attempts against a server that always answers 503', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 503 }))
    const analytics = client({ maxRetries: 4 })
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await expect(analytics.flush()).rejects.toMatchObject({ name: 'DeliveryError', status: 503, attempts: 5 })

    expect(server.arrivals).toBe(5)
    expect(outcomes.get('m1')?.calls).toBe(1)
    expect(analytics.stats()).toMatchObject({ failed: 1, retried: 4, sent: 0 })
  })

  it('makes a single attempt with maxRetries 0', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 500 }))
    const analytics = client({ maxRetries: 0 })
    analytics.track(trackMessage('m1'))
    await expect(analytics.flush()).rejects.toMatchObject({ name: 'DeliveryError', status: 500, attempts: 1 })
    expect(server.arrivals).toBe(1)
  })

  it('stops retrying when maxRetryTime is spent, long before maxRetries', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 500 }))
    const analytics = client({ maxRetries: 10_000, retryDelay: 20, maxRetryDelay: 20, maxRetryTime: 300 })
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await expect(analytics.flush()).rejects.toBeInstanceOf(DeliveryError)

    const error = outcomes.get('m1')?.error as DeliveryError
    // The last attempt gets only what is left of the 300 ms: on a loaded machine it can be aborted
    // by its own timeout before its request reaches the server. Every other attempt arrives.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(error.attempts - server.arrivals).toBeGreaterThanOrEqual(0)
    expect(error.attempts - server.arrivals).toBeLessThanOrEqual(1)
    expect(server.arrivals).toBeGreaterThan(1)
    expect(server.arrivals).toBeLessThan(10_000)
  })
})

describe('Retry-After', () => {
  it('waits the number of seconds of a Retry-After in seconds', async () => {
    server = await startFaultServer(failFirst(1, { kind: 'status', status: 429, headers: { 'Retry-After': '1' } }))
    const analytics = client({ maxRetryDelay: 5 })
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await analytics.flush()

    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ status: 429, delayMs: 1000 })
    expect(server.accepted.get('m1')).toBe(1)
    expect(outcomes.get('m1')).toEqual({ calls: 1, error: undefined })
  })

  it('waits until the time of a Retry-After given as an HTTP date, beyond maxRetryDelay', async () => {
    const retryAt = () => new Date(Date.now() + 3_000).toUTCString()
    server = await startFaultServer((index) =>
      index === 0 ? { kind: 'status', status: 503, headers: { 'Retry-After': retryAt() } } : { kind: 'status', status: 200 },
    )
    const analytics = client({ maxRetryDelay: 5 })
    const retries = retriesOf(analytics)
    analytics.track(trackMessage('m1'))
    await analytics.flush()

    expect(retries).toHaveLength(1)
    // An HTTP date has whole seconds: 3 s ahead, cut to the second, is 2 to 3 s away when sent
    // (less what the answer took to arrive): far more than maxRetryDelay's 5 ms.
    expect(retries[0].delayMs).toBeGreaterThan(1_000)
    expect(retries[0].delayMs).toBeLessThanOrEqual(3_000)
    expect(server.accepted.get('m1')).toBe(1)
  })

  it('uses the normal backoff, not "now", after a Retry-After date in the past (a server clock behind)', async () => {
    server = await startFaultServer(
      failFirst(1, { kind: 'status', status: 503, headers: { 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' } }),
    )
    const analytics = client({ retryDelay: 200, maxRetryDelay: 10_000 })
    const retries = retriesOf(analytics)
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.5)
    analytics.track(trackMessage('m1'))
    await analytics.flush().finally(() => random.mockRestore())
    // Half of the first backoff (retryDelay × 2^0), as the random draw is pinned at 0.5.
    expect(retries.map((r) => r.delayMs)).toEqual([100])
    expect(server.accepted.get('m1')).toBe(1)
  })

  it('falls back to the backoff when Retry-After is unreadable', async () => {
    server = await startFaultServer(failFirst(1, { kind: 'status', status: 429, headers: { 'Retry-After': 'soon' } }))
    const analytics = client({ retryDelay: 3, maxRetryDelay: 3 })
    const retries = retriesOf(analytics)
    analytics.track(trackMessage('m1'))
    await analytics.flush()
    expect(retries).toHaveLength(1)
    expect(retries[0].delayMs).toBeLessThan(3)
  })

  it('caps a very long Retry-After at 30 s, and closeAndFlush({ timeout }) ends the wait with a TimeoutError', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 429, headers: { 'Retry-After': '3600' } }))
    const analytics = client()
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await until(() => retries.length === 1, 5_000, 'the first retry')
    expect(retries[0].delayMs).toBe(30_000)

    await expect(analytics.closeAndFlush({ timeout: 50 })).rejects.toBeInstanceOf(TimeoutError)
    expect(outcomes.get('m1')?.calls).toBe(1)
    expect(outcomes.get('m1')?.error).toBeInstanceOf(TimeoutError)
    expect(server.arrivals).toBe(1)
  })

  it('fails at once, without waiting, when Retry-After points past maxRetryTime', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 429, headers: { 'Retry-After': '30' } }))
    const analytics = client({ maxRetryTime: 1_000 })
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await expect(analytics.flush()).rejects.toMatchObject({ name: 'DeliveryError', status: 429 })
    expect(retries).toHaveLength(0)
    expect(server.arrivals).toBe(1)
  })
})

describe('every attempt carries the same body', () => {
  it('sends the same messageIds, in the same order, on every attempt of a request', async () => {
    const faults: Fault[] = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
      { kind: 'hang' },
      { kind: 'status', status: 429, headers: { 'Retry-After': '0' } },
    ]
    server = await startFaultServer((index) => faults[index] ?? { kind: 'status', status: 200 })
    const analytics = client({ flushAt: 50, flushInterval: 0, timeout: 200, maxRetries: 10 })
    const outcomes = new Outcomes()
    analytics.track(trackMessage('first'), outcomes.callback('first'))
    await until(() => server.arrivals >= 1, 5_000, 'the first request')
    for (let i = 0; i < 30; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    await analytics.flush()

    // Two requests (the first message alone, then the 30 others) shared the four faults between them.
    expect(server.requests).toHaveLength(6)
    const bodiesById = new Map<string, Set<string>>()
    for (const r of server.requests) {
      const ids = r.messages.map((m: any) => m.messageId).join(',')
      bodiesById.set(ids, (bodiesById.get(ids) ?? new Set()).add(r.text))
    }
    expect(bodiesById.size).toBe(2)
    for (const bodies of bodiesById.values()) expect(bodies.size).toBe(1)
    expect(server.accepted.size).toBe(31)
    expect([...server.accepted.values()].every((n) => n === 1)).toBe(true)
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
  })

  it('retries an alias on /v1/alias with the same body', async () => {
    server = await startFaultServer(failFirst(2, { kind: 'status', status: 502 }))
    const analytics = client()
    analytics.alias({ previousId: 'anon-1', userId: 'user-1', messageId: 'alias-1' })
    await analytics.flush()
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/alias', '/v1/alias', '/v1/alias'])
    expect(new Set(server.requests.map((r) => r.text)).size).toBe(1)
    expect(server.accepted.get('alias-1')).toBe(1)
  })
})

describe('request timeout', () => {
  it('aborts an attempt that takes longer than `timeout` and reports it in the DeliveryError', async () => {
    server = await startFaultServer(() => ({ kind: 'hang' }))
    // Long enough for the request to reach the server on a loaded machine: it sees exactly one.
    const analytics = client({ timeout: 300, maxRetries: 0 })
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await expect(analytics.flush()).rejects.toBeInstanceOf(DeliveryError)

    const error = outcomes.get('m1')?.error as DeliveryError
    expect(error.status).toBeUndefined()
    expect(String((error.cause as Error)?.message ?? error.message)).toMatch(/timed out/)
    // The client closed its side: the server no longer holds an open request.
    await until(() => server.concurrent === 0, 5_000, 'the aborted request to close')
    expect(server.requests).toHaveLength(1)
  })

  it('retries an attempt that timed out and then delivers', async () => {
    server = await startFaultServer(failFirst(1, { kind: 'hang' }))
    const analytics = client({ timeout: 100 })
    const retries = retriesOf(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await analytics.flush()

    expect(retries).toHaveLength(1)
    expect(retries[0].error?.message).toMatch(/timed out/)
    expect(server.requests.map((r) => r.status)).toEqual([undefined, 200])
    expect(outcomes.get('m1')).toEqual({ calls: 1, error: undefined })
  })
})
