import { DEFAULT_BREAKER } from '../../src/flow-control/breaker'
import type { AttemptReport } from '../../src/delivery/deliver'
import { HeldTimers } from '../../src/queue/held-timers'
import { OutageBreaker, type HostChange } from '../../src/queue/outage'
import type { Transport } from '../../src/platform/transport'
import { ServiceUnavailableError } from '../../src'
import { normalizeOptions } from '../../src/config/normalize-options'
import { Lanes } from '../../src/queue/lanes'
import { SendMachinery } from '../../src/queue/send-machinery'

// Issue 32, part 6: the instance's outage breaker over its hosts (`host`, then `fallbackHosts`),
// with an injected clock: where each attempt goes, and what the scheduler is told.

const A = 'http://a.test'
const B = 'http://b.test'
const transport: Transport = { acceptsBytes: false, send: () => Promise.reject(new Error('not sent in this test')) }

function setup(): {
  breaker: OutageBreaker
  clock: { now: number }
  changes: HostChange[]
  told: string[]
  fail: (host: string, times?: number) => void
} {
  const clock = { now: 0 }
  const changes: HostChange[] = []
  const told: string[] = []
  const hooks = {
    opened: () => told.push('opened'),
    closed: () => told.push('closed'),
    probeDue: () => undefined,
    changed: (change: HostChange) => changes.push(change),
  }
  const hosts = [A, B].map((host) => ({ host, transport }))
  const breaker = new OutageBreaker(
    hosts,
    DEFAULT_BREAKER,
    new HeldTimers(() => undefined),
    hooks,
    () => clock.now,
    () => 0.5,
  )
  // 8 failed attempts over 1.4 s open a host's breaker (DEFAULT_BREAKER).
  const fail = (host: string, times = 8): void => {
    for (let i = 0; i < times; i++) {
      clock.now += 200
      breaker.report(attempt(host, 'failed', clock.now - 1))
    }
  }
  return { breaker, clock, changes, told, fail }
}

function attempt(host: string, verdict: AttemptReport['verdict'], startedMs: number, isProbe = false): AttemptReport {
  return {
    signal: verdict === 'alive' ? 'success' : 'overload',
    verdict,
    startedMs,
    host,
    isProbe,
    status: verdict === 'alive' ? 200 : 500,
  }
}

afterEach(() => jest.useRealTimers())

describe('the outage breaker over several hosts', () => {
  it('sends to the first host while it answers', () => {
    const { breaker } = setup()
    expect(breaker.route(false)).toMatchObject({ host: A, isProbe: false })
    expect(breaker.hosts).toEqual([
      { host: A, state: 'closed', active: true },
      { host: B, state: 'closed', active: false },
    ])
  })

  it('fails over when the first host is down: the next takes the attempts, nothing is failed, the scheduler is told nothing', () => {
    const { breaker, changes, told, fail } = setup()
    fail(A)
    expect(changes).toEqual([{ state: 'open', host: A, error: expect.any(ServiceUnavailableError), activeHost: B }])
    expect(told).toEqual([])
    expect(breaker.isOpen).toBe(false)
    expect(breaker.error('/v1/batch')).toBeUndefined()
    expect(breaker.route(false)).toMatchObject({ host: B, isProbe: false })
    expect(breaker.status).toBe('closed')
    expect(breaker.isDegraded).toBe(true)
  })

  it("probes the first host with a request's attempt once its probe is due, and gives it the traffic back when it answers", () => {
    jest.useFakeTimers()
    const { breaker, clock, changes, fail } = setup()
    fail(A)
    expect(breaker.route(false).host).toBe(B)
    clock.now += 1000
    const probe = breaker.route(false)
    expect(probe).toMatchObject({ host: A, isProbe: true })
    // One probe at a time: the next attempts go to B meanwhile.
    expect(breaker.route(false)).toMatchObject({ host: B, isProbe: false })
    breaker.report(attempt(A, 'alive', clock.now, true))
    expect(changes.at(-1)).toEqual({ state: 'closed', host: A, downMs: 1000, activeHost: A })
    expect(breaker.route(false)).toMatchObject({ host: A, isProbe: false })
  })

  it('a probe that fails waits twice as long before the next', () => {
    jest.useFakeTimers()
    const { breaker, clock, fail } = setup()
    fail(A)
    clock.now += 1000
    expect(breaker.route(false).isProbe).toBe(true)
    breaker.report(attempt(A, 'failed', clock.now, true))
    clock.now += 1000
    expect(breaker.route(false)).toMatchObject({ host: B, isProbe: false })
    clock.now += 1000
    expect(breaker.route(false)).toMatchObject({ host: A, isProbe: true })
  })

  it('a probe that is never sent (its request ended first) lets the next one start', () => {
    jest.useFakeTimers()
    const { breaker, clock, fail } = setup()
    fail(A)
    clock.now += 1000
    breaker.route(false).cancel()
    expect(breaker.route(false)).toMatchObject({ host: A, isProbe: true })
  })

  it('is open only when every host is down: then the scheduler is told once, and the error says so', () => {
    jest.useFakeTimers()
    const { breaker, changes, told, fail } = setup()
    fail(A)
    fail(B)
    expect(changes.map(({ state, host, activeHost }) => [state, host, activeHost])).toEqual([
      ['open', A, B],
      ['open', B, undefined],
    ])
    expect(told).toEqual(['opened'])
    expect(breaker.isOpen).toBe(true)
    expect(breaker.error('/v1/batch')?.message).toContain(`${B}/v1/batch: the service is unavailable`)
    expect(breaker.error('/v1/batch')?.message).toContain('and so is every fallback host')
  })

  it('while every host is down, the probe goes to the first host whose probe is due, and one that answers ends the outage', () => {
    jest.useFakeTimers()
    const { breaker, clock, told, changes, fail } = setup()
    fail(A)
    fail(B)
    // A opened 1.6 s before B: its probe is due first.
    clock.now += 1000
    expect(breaker.mayProbe(false)).toBe(true)
    expect(breaker.route(true)).toMatchObject({ host: A, isProbe: true })
    breaker.report(attempt(A, 'failed', clock.now, true))
    clock.now += 600
    expect(breaker.mayProbe(false)).toBe(true)
    expect(breaker.route(true)).toMatchObject({ host: B, isProbe: true })
    breaker.report(attempt(B, 'alive', clock.now, true))
    expect(told).toEqual(['opened', 'closed'])
    expect(changes.at(-1)).toMatchObject({ state: 'closed', host: B, activeHost: B })
    expect(breaker.route(false)).toMatchObject({ host: B, isProbe: false })
  })

  it('a retry that waits for the host that went down goes to the next one at once', async () => {
    const { breaker, fail } = setup()
    fail(A, 7)
    let woke = false
    const wait = breaker.sleep(60_000, new AbortController().signal, '/v1/batch').then(() => (woke = true))
    fail(A, 1)
    await wait
    expect(woke).toBe(true)
    expect(breaker.route(false).host).toBe(B)
  })

  it('a retry after a failure on the host that went down does not wait: it goes to the next host at once', () => {
    const { breaker, fail } = setup()
    fail(A, 3)
    // While a run builds on A, retries wait at most 0.4 s (DEFAULT_BREAKER.runRetryWaitMs).
    expect(breaker.retryWaitCapMs(A)).toBe(400)
    fail(A, 5)
    expect(breaker.retryWaitCapMs(A)).toBe(0)
    expect(breaker.retryWaitCapMs(B)).toBe(Infinity)
    fail(B)
    // Every host down: no other host to go to (the outage error ends the request).
    expect(breaker.retryWaitCapMs(A)).not.toBe(0)
  })

  it('a retry that waits fails at once with the outage error when every host is down', async () => {
    const { breaker, fail } = setup()
    fail(A)
    fail(B, 7)
    const wait = breaker.sleep(60_000, new AbortController().signal, '/v1/batch')
    fail(B, 1)
    await expect(wait).rejects.toBeInstanceOf(ServiceUnavailableError)
  })
})

describe('an idle instance with a host down', () => {
  it('keeps its breakers (the host stays known to be down) until every host answers again', () => {
    const options = normalizeOptions('key', { host: A, fallbackHosts: [B] })
    const hooks = {
      hasWorkForSlot: () => false,
      wake: () => undefined,
      retry: () => undefined,
      opened: () => undefined,
      closed: () => undefined,
      changed: () => undefined,
    }
    const machinery = new SendMachinery(options, new HeldTimers(() => undefined), new Lanes(), false, hooks)
    expect(machinery.hosts).toEqual([
      { host: A, state: 'closed', active: true },
      { host: B, state: 'closed', active: false },
    ])
    const { context } = machinery
    jest.useFakeTimers()
    for (let i = 0; i < 8; i++) {
      jest.advanceTimersByTime(200)
      context.attemptEnded('/v1/batch', attempt(A, 'failed', Date.now() - 1))
    }
    expect(machinery.hosts?.[0]).toMatchObject({ state: 'open', active: false })

    machinery.release()
    expect(machinery.outage).toBeDefined()
    expect(machinery.hosts?.[0]).toMatchObject({ state: 'open', active: false })

    jest.advanceTimersByTime(200)
    context.attemptEnded('/v1/batch', attempt(A, 'alive', Date.now() - 1, true))
    machinery.release()
    expect(machinery.outage).toBeUndefined()
  })
})
