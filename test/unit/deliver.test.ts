import { deliverRequest, type DeliveryContext } from '../../src/delivery/deliver'
import { NO_TROUBLE, SplitBatch } from '../../src/delivery/isolation'
import { DeliveryError, PoisonMessageError, TimeoutError } from '../../src'

function context(overrides: Partial<DeliveryContext>): DeliveryContext {
  const ctx: Omit<DeliveryContext, 'route'> = {
    transport: { acceptsBytes: false, send: () => Promise.resolve({ status: 503, retryAfter: null }) },
    policy: { maxRetries: 3, baseMs: 10, capMs: 10, maxTotalMs: 60_000 },
    timeoutMs: 1000,
    outage: () => undefined,
    sleep: () => Promise.resolve(),
    attemptEnded: () => undefined,
    pauseSlot: () => undefined,
    resumeSlot: () => Promise.resolve(),
    reclaimSlot: () => undefined,
    lastAcceptedStartMs: () => -Infinity,
    retryWaitCapMs: () => Infinity,
    rateSlot: () => Promise.resolve(),
    now: () => 0,
    random: () => 0.5,
    onRetry: () => undefined,
    ...overrides,
  }
  // One host: every attempt goes to it.
  return { route: () => ({ host: 'http://127.0.0.1:1', transport: ctx.transport, isProbe: false, cancel: () => undefined }), ...ctx }
}

const REQUEST = { sinceMs: 0, isProbe: false, count: 1, trouble: NO_TROUBLE }

describe('deliverRequest', () => {
  it('names what failed during a retry wait, instead of blaming a closeAndFlush that never happened', async () => {
    const ctx = context({ sleep: () => Promise.reject(new Error('timer refused')) })
    const error = await deliverRequest('/v1/batch', '{}', ctx, new AbortController().signal, REQUEST).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(DeliveryError)
    expect((error as DeliveryError).message).toBe('/v1/batch: the wait before a retry failed (timer refused)')
    expect((error as DeliveryError).status).toBe(503)
  })

  it('reports the closeAndFlush timeout when its own request was stopped during the wait', async () => {
    const stop = new AbortController()
    const ctx = context({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error))
          stop.abort(new TimeoutError('closeAndFlush: gave up'))
        }),
    })
    const error = await deliverRequest('/v1/batch', '{}', ctx, stop.signal, REQUEST).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).message).toMatch(/closeAndFlush timeout/)
  })

  it('out of time after a 503: reason expired, with the 503 and what the service said as fields', async () => {
    let nowMs = 0
    const ctx = context({
      transport: { acceptsBytes: false, send: () => Promise.resolve({ status: 503, retryAfter: null, body: 'busy' }) },
      policy: { maxRetries: 10, baseMs: 10, capMs: 10, maxTotalMs: 500 },
      // Each wait before a retry takes 400 ms: the third attempt finds no time left in the 500 ms budget.
      now: () => nowMs,
      sleep: () => {
        nowMs += 400
        return Promise.resolve()
      },
    })
    const error = (await deliverRequest('/v1/batch', '{}', ctx, new AbortController().signal, REQUEST).catch(
      (err: unknown) => err,
    )) as DeliveryError
    expect(error).toBeInstanceOf(DeliveryError)
    expect(error.reason).toBe('expired')
    expect(error.status).toBe(503)
    expect(error.attempts).toBeGreaterThan(0)
    expect(error.message).toMatch(/no time left for a retry within maxRetryTime .*the last answer: 503/)
  })

  it('reports each attempt to the limiter: overload for a 503, success for a 200', async () => {
    const signals: string[] = []
    let calls = 0
    const ctx = context({
      transport: { acceptsBytes: false, send: () => Promise.resolve({ status: calls++ === 0 ? 503 : 200, retryAfter: null }) },
      attemptEnded: (_path, report) => signals.push(report.signal),
    })
    await deliverRequest('/v1/alias', '{}', ctx, new AbortController().signal, REQUEST)
    expect(signals).toEqual(['overload', 'success'])
  })

  describe('a request that keeps failing while the service accepts others', () => {
    const failing = (status: number): Partial<DeliveryContext> => ({
      transport: { acceptsBytes: false, send: () => Promise.resolve({ status, retryAfter: null }) },
      // Another request, started at or after this one's first failure, was accepted.
      lastAcceptedStartMs: () => 0,
    })

    it('a batch of several is split after its second failed attempt, and the breaker is told it is a batch problem', async () => {
      const reports: Array<boolean | undefined> = []
      const ctx = context({ ...failing(500), attemptEnded: (_path, report) => reports.push(report.isBatchProblem) })
      const error = await deliverRequest('/v1/batch', '{}', ctx, new AbortController().signal, { ...REQUEST, count: 10 }).catch(
        (err: unknown) => err,
      )
      expect(error).toBeInstanceOf(SplitBatch)
      expect(reports).toEqual([true, true])
    })

    it('one message fails alone with a PoisonMessageError once its retries run out', async () => {
      const error = await deliverRequest('/v1/batch', '{}', context(failing(500)), new AbortController().signal, REQUEST).catch(
        (err: unknown) => err,
      )
      expect(error).toBeInstanceOf(PoisonMessageError)
      expect(error).toMatchObject({ status: 500, attempts: 4, isPoison: true })
      expect((error as Error).message).toMatch(/in a request of its own/)
    })

    it('a 503 is never a batch problem: no split, and a plain DeliveryError', async () => {
      const ctx = context(failing(503))
      const batch = await deliverRequest('/v1/batch', '{}', ctx, new AbortController().signal, { ...REQUEST, count: 10 }).catch(
        (err: unknown) => err,
      )
      expect(batch).toBeInstanceOf(DeliveryError)
      expect(batch).not.toBeInstanceOf(SplitBatch)
      const single = await deliverRequest('/v1/batch', '{}', ctx, new AbortController().signal, REQUEST).catch((err: unknown) => err)
      expect(single).not.toBeInstanceOf(PoisonMessageError)
    })
  })

  // Issue 32, part 6: with fallbackHosts, an attempt may go to a host that is down, as its probe.
  describe('with a fallback host', () => {
    const down = { acceptsBytes: false, send: () => Promise.resolve({ status: 500, retryAfter: null }) }
    const up = { acceptsBytes: false, send: () => Promise.resolve({ status: 200, retryAfter: null }) }

    it('a probe of a host that is down that fails is not a retry: with maxRetries 0 the request goes on at once and is delivered', async () => {
      const reports: [string, boolean, string][] = []
      const routes = [
        { host: 'http://a.test', transport: down, isProbe: true, cancel: () => undefined },
        { host: 'http://b.test', transport: up, isProbe: false, cancel: () => undefined },
      ]
      let waits = 0
      const ctx = context({
        policy: { maxRetries: 0, baseMs: 10, capMs: 10, maxTotalMs: 60_000 },
        attemptEnded: (_path, r) => reports.push([r.host, r.isProbe, r.verdict]),
        // a is still down and b takes the requests: no wait after a failure on a.
        retryWaitCapMs: (host) => (host === 'http://a.test' ? 0 : Infinity),
        sleep: () => {
          waits += 1
          return Promise.resolve()
        },
      })
      await deliverRequest('/v1/batch', '{}', { ...ctx, route: () => routes.shift()! }, new AbortController().signal, REQUEST)
      expect(reports).toEqual([
        ['http://a.test', true, 'failed'],
        ['http://b.test', false, 'alive'],
      ])
      expect(waits).toBe(0)
    })

    it('maxRetries counts per host: a request that moved to another host gets its retries there', async () => {
      const hosts: string[] = []
      let n = 0
      const ctx = context({ policy: { maxRetries: 1, baseMs: 1, capMs: 1, maxTotalMs: 60_000 } })
      // One attempt on a, then (a went down) b, where the retry (the third attempt) succeeds: with
      // one count for the request, maxRetries 1 would have ended it after the second.
      const route = () => {
        const host = n === 0 ? 'http://a.test' : 'http://b.test'
        const transport = n++ < 2 ? down : up
        hosts.push(host)
        return { host, transport, isProbe: false, cancel: () => undefined }
      }
      await deliverRequest('/v1/batch', '{}', { ...ctx, route }, new AbortController().signal, REQUEST)
      expect(hosts).toEqual(['http://a.test', 'http://b.test', 'http://b.test'])
    })
  })
})
