import { Analytics, ClosedError, TimeoutError, ValidationError, type AnalyticsOptions, type Callback, type DropInfo } from '../../src'
import { startFaultServer, until, type Fault, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

let server: FaultServer
let clients: Analytics[] = []

afterEach(async () => {
  for (const client of clients) await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  clients = []
  await server.close()
})

function client(options: AnalyticsOptions = {}): Analytics {
  const analytics = new Analytics('close-key', { host: server.url, retryDelay: 1, maxRetryDelay: 5, ...options })
  clients.push(analytics)
  return analytics
}

const hang = (): Fault => ({ kind: 'hang' })

/** Calls each message method once with a valid message and the given callback. */
function callEveryMethod(analytics: Analytics, callback?: (method: string) => Callback | undefined): void {
  const cb = (method: string) => callback?.(method)
  analytics.identify({ userId: 'u1', traits: { a: 1 } }, cb('identify'))
  analytics.track({ userId: 'u1', event: 'E' }, cb('track'))
  analytics.page({ userId: 'u1', name: 'P' }, cb('page'))
  analytics.screen({ userId: 'u1', name: 'S' }, cb('screen'))
  analytics.group({ userId: 'u1', groupId: 'g1' }, cb('group'))
  analytics.alias({ userId: 'u1', previousId: 'a1' }, cb('alias'))
}

describe('closeAndFlush', () => {
  it('delivers everything queued before it resolves', async () => {
    server = await startFaultServer((index) => (index % 3 === 0 ? { kind: 'status', status: 503 } : { kind: 'delay', ms: 2 }))
    const analytics = client({ flushAt: 1_000, flushInterval: 0, maxInFlight: 2 })
    const outcomes = new Outcomes()
    for (let i = 0; i < 2_000; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    expect(analytics.stats().queued).toBeGreaterThan(0)
    await analytics.closeAndFlush()

    expect(server.accepted.size).toBe(2_000)
    expect(outcomes.settled).toBe(2_000)
    expect(outcomes.errorNames()).toEqual({})
    expect(analytics.stats()).toMatchObject({ queued: 0, inFlight: 0, sent: 2_000 })
  })

  it('refuses every message method afterwards with a ClosedError in its callback, and sends nothing more', async () => {
    server = await startFaultServer()
    const analytics = client()
    analytics.track(trackMessage('before'))
    await analytics.closeAndFlush()
    const arrivals = server.arrivals

    const errors = new Map<string, Error | undefined>()
    const calls = new Map<string, number>()
    callEveryMethod(analytics, (method) => (err) => {
      calls.set(method, (calls.get(method) ?? 0) + 1)
      errors.set(method, err)
    })
    await until(() => calls.size === 6, 2_000, 'the six callbacks')
    await analytics.flush()

    expect([...calls.values()]).toEqual([1, 1, 1, 1, 1, 1])
    for (const [method, err] of errors) {
      expect(err).toBeInstanceOf(ClosedError)
      expect(`${method}: ${err?.message}`).toMatch(/closed/)
    }
    expect(server.arrivals).toBe(arrivals)
    expect(server.accepted.has('before')).toBe(true)
    expect(analytics.stats().dropped).toBe(6)
  })

  it('gives a ClosedError to errorHandler when the message has no callback, and never throws', async () => {
    server = await startFaultServer()
    const handled: Error[] = []
    const analytics = client({ errorHandler: (err) => handled.push(err) })
    await analytics.closeAndFlush()
    expect(() => callEveryMethod(analytics)).not.toThrow()
    expect(handled).toHaveLength(6)
    expect(handled.every((err) => err instanceof ClosedError)).toBe(true)
  })

  it('reports a message refused after close to drop listeners even without callback or errorHandler', async () => {
    server = await startFaultServer()
    const analytics = client()
    const drops: DropInfo[] = []
    analytics.on('drop', (info) => drops.push(info))
    await analytics.closeAndFlush()
    expect(() => callEveryMethod(analytics)).not.toThrow()
    expect(drops).toHaveLength(6)
    expect(drops.every((d) => d.error instanceof ClosedError && d.count === 1)).toBe(true)
    expect(analytics.stats().dropped).toBe(6)
  })

  it('still reports invalid input after close as a ValidationError, not a ClosedError', async () => {
    server = await startFaultServer()
    const analytics = client()
    await analytics.closeAndFlush()
    let error: Error | undefined
    analytics.track({ userId: 'u1' } as never, (err) => (error = err))
    await until(() => error !== undefined, 2_000, 'the callback')
    expect(error).toBeInstanceOf(ValidationError)
    expect((error as ValidationError).field).toBe('event')
  })

  it('settles at its timeout against a server that never answers: the rest get a TimeoutError', async () => {
    server = await startFaultServer(hang)
    const analytics = client({ flushAt: 1, maxInFlight: 2, timeout: 60_000 })
    const outcomes = new Outcomes()
    for (let i = 0; i < 50; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    await until(() => server.concurrent === 2, 2_000, 'two hung requests')
    expect(analytics.stats()).toMatchObject({ inFlight: 2, queued: 48 })

    await expect(analytics.closeAndFlush({ timeout: 200 })).rejects.toBeInstanceOf(TimeoutError)
    expect(outcomes.settled).toBe(50)
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ TimeoutError: 50 })
    expect(analytics.stats()).toMatchObject({ queued: 0, inFlight: 0, sent: 0, failed: 50 })
    // The hung requests were aborted by the client.
    await until(() => server.concurrent === 0, 2_000, 'the hung requests to be closed')
  })

  it('resolves (does not reject) at its timeout when an errorHandler is set, which gets the TimeoutError', async () => {
    server = await startFaultServer(hang)
    const handled: Error[] = []
    const analytics = client({ flushAt: 1, timeout: 60_000, errorHandler: (err) => handled.push(err) })
    analytics.track(trackMessage('m0'))
    await until(() => server.concurrent === 1, 2_000, 'the hung request')
    await expect(analytics.closeAndFlush({ timeout: 100 })).resolves.toBeUndefined()
    expect(handled.some((err) => err instanceof TimeoutError)).toBe(true)
  })

  it('ends a retry wait at its timeout with a TimeoutError', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 503, headers: { 'Retry-After': '30' } }))
    const analytics = client({ flushAt: 1, maxRetryTime: 120_000 })
    const outcomes = new Outcomes()
    const retries: number[] = []
    analytics.on('retry', (info) => retries.push(info.delayMs))
    analytics.track(trackMessage('m0'), outcomes.callback('m0'))
    await until(() => retries.length === 1, 2_000, 'the first retry wait')
    expect(retries).toEqual([30_000])

    await expect(analytics.closeAndFlush({ timeout: 100 })).rejects.toBeInstanceOf(TimeoutError)
    expect(outcomes.get('m0')?.calls).toBe(1)
    expect(outcomes.get('m0')?.error).toBeInstanceOf(TimeoutError)
    expect(server.arrivals).toBe(1)
  })

  it('does not call a callback again when an answer comes after the timeout', async () => {
    server = await startFaultServer(() => ({ kind: 'delay', ms: 300 }))
    const analytics = client({ flushAt: 1, timeout: 60_000, errorHandler: () => undefined })
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m0'), outcomes.callback('m0'))
    await until(() => server.concurrent === 1, 2_000, 'the slow request')
    await analytics.closeAndFlush({ timeout: 50 })
    expect(outcomes.get('m0')?.error).toBeInstanceOf(TimeoutError)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(outcomes.get('m0')?.calls).toBe(1)
    expect(analytics.stats()).toMatchObject({ sent: 0, failed: 1, inFlight: 0, queued: 0 })
  })

  it('lets pending flush() calls settle when its timeout passes', async () => {
    server = await startFaultServer(hang)
    const analytics = client({ flushAt: 1, timeout: 60_000, errorHandler: () => undefined })
    analytics.track(trackMessage('m0'))
    const flushed = analytics.flush()
    analytics.track(trackMessage('m1'))
    const flushedToo = analytics.flush()
    await analytics.closeAndFlush({ timeout: 100 })
    await expect(flushed).resolves.toBeUndefined()
    await expect(flushedToo).resolves.toBeUndefined()
  })

  it('resolves at once when nothing is pending, and a second call resolves too', async () => {
    server = await startFaultServer()
    const analytics = client()
    analytics.track(trackMessage('m0'))
    await analytics.closeAndFlush({ timeout: 5_000 })
    await expect(analytics.closeAndFlush({ timeout: 5_000 })).resolves.toBeUndefined()
    await expect(analytics.closeAndFlush()).resolves.toBeUndefined()
    expect(server.accepted.get('m0')).toBe(1)
  })

  it.each([-1, Number.NaN, '100'])('rejects a timeout of %p with a ValidationError naming "timeout"', async (timeout) => {
    server = await startFaultServer()
    const analytics = client()
    await expect(analytics.closeAndFlush({ timeout: timeout as number })).rejects.toMatchObject({
      name: 'ValidationError',
      field: 'timeout',
    })
  })
})
