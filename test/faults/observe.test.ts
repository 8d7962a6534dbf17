import { Analytics, DeliveryError, QueueFullError, ValidationError, type DropInfo, type FlushInfo, type RetryInfo } from '../../src'
import { startFaultServer, until, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

let server: FaultServer
let analytics: Analytics | undefined

afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  await server.close()
})

function listen(client: Analytics) {
  const events = { error: [] as Error[], retry: [] as RetryInfo[], drop: [] as DropInfo[], flush: [] as FlushInfo[] }
  client.on('error', (e) => events.error.push(e))
  client.on('retry', (e) => events.retry.push(e))
  client.on('drop', (e) => events.drop.push(e))
  client.on('flush', (e) => events.flush.push(e))
  return events
}

describe('stats() and on() events', () => {
  it('count what happened: sent, failed, dropped, retried, requests, queued and in flight', async () => {
    // Request 0 gets a 503, its retry waits 500 ms for a 200; an alias gets a 400.
    server = await startFaultServer((index, path) =>
      path === '/v1/alias'
        ? { kind: 'status', status: 400 }
        : index === 0
          ? { kind: 'status', status: 503 }
          : index === 1
            ? { kind: 'delay', ms: 500 }
            : { kind: 'status', status: 200 },
    )
    analytics = new Analytics('obs-key', {
      host: server.url,
      flushAt: 1_000,
      flushInterval: 0,
      maxQueueSize: 5,
      retryDelay: 1,
      maxRetryDelay: 2,
      errorHandler: () => undefined,
    })
    const events = listen(analytics)
    const outcomes = new Outcomes()

    analytics.track(trackMessage('m0'), outcomes.callback('m0')) // the first message flushes at once
    for (let i = 1; i <= 4; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    expect(analytics.stats()).toMatchObject({ queued: 4, inFlight: 1, dropped: 0 })

    analytics.track(trackMessage('full1'), outcomes.callback('full1')) // 5 held: refused
    analytics.track(trackMessage('full2'), outcomes.callback('full2'))
    analytics.track({ userId: 'u' } as never, outcomes.callback('invalid')) // no event
    expect(analytics.stats()).toMatchObject({ queued: 4, inFlight: 1, dropped: 3 })

    await until(() => server.concurrent === 1 && events.retry.length === 1, 2_000, 'the retry to be under way')
    expect(analytics.stats()).toMatchObject({ queued: 4, inFlight: 1, retried: 1, sent: 0, requests: 0 })

    await analytics.flush()
    analytics.alias({ previousId: 'a', userId: 'u', messageId: 'alias' }, outcomes.callback('alias'))
    await analytics.flush()

    expect(analytics.stats()).toEqual({
      queued: 0,
      inFlight: 0,
      sent: 5,
      failed: 1,
      dropped: 3,
      retried: 1,
      requests: 2,
      requestsInFlight: 0,
      inFlightLimit: 16,
      breaker: 'closed',
    })
    // inFlightLimit: the adaptive limit started at 32 and halved once, on the 503.

    // m1-m4 went out (with flush(), beside the retry of m0) and were answered first.
    expect(events.flush.map((f) => [f.path, f.count])).toEqual([
      ['/v1/batch', 4],
      ['/v1/batch', 1],
    ])
    const answered = server.requests.filter((r) => r.status === 200).map((r) => Buffer.byteLength(r.text))
    expect(events.flush.map((f) => f.bytes).sort()).toEqual(answered.sort())

    expect(events.retry).toHaveLength(1)
    expect(events.retry[0]).toMatchObject({ path: '/v1/batch', attempt: 1, status: 503 })

    const dropKinds = events.drop.map((d) => [d.error.name, d.count])
    expect(dropKinds).toEqual([
      ['QueueFullError', 1],
      ['QueueFullError', 1],
      ['ValidationError', 1],
      ['DeliveryError', 1],
    ])
    expect(events.error.filter((e) => e instanceof QueueFullError)).toHaveLength(2)
    expect(events.error.filter((e) => e instanceof ValidationError)).toHaveLength(1)
    expect(events.error.filter((e) => e instanceof DeliveryError)).toHaveLength(1)

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ QueueFullError: 2, ValidationError: 1, DeliveryError: 1 })
  })

  it('keeps delivering when a listener throws, and off() removes a listener', async () => {
    server = await startFaultServer((index) => (index === 0 ? { kind: 'status', status: 500 } : { kind: 'status', status: 200 }))
    analytics = new Analytics('obs-key', { host: server.url, flushAt: 1, retryDelay: 1, maxRetryDelay: 2 })
    const thrower = () => {
      throw new Error('listener bug')
    }
    analytics.on('retry', thrower).on('flush', thrower).on('error', thrower).on('drop', thrower)
    const counted: FlushInfo[] = []
    const counter = (info: FlushInfo) => counted.push(info)
    analytics.on('flush', counter)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m0'), outcomes.callback('m0'))
    await analytics.flush()
    analytics.off('flush', counter)
    analytics.track(trackMessage('m1'), outcomes.callback('m1'))
    await analytics.flush()

    expect(outcomes.errorNames()).toEqual({})
    expect(server.accepted.size).toBe(2)
    expect(counted).toHaveLength(1)
    expect(analytics.stats()).toMatchObject({ sent: 2, retried: 1, requests: 2 })
  })

  it('reports a callback that throws to error listeners and errorHandler, and still settles the others', async () => {
    server = await startFaultServer()
    const handled: Error[] = []
    analytics = new Analytics('obs-key', { host: server.url, flushAt: 3, errorHandler: (e) => handled.push(e) })
    const events = listen(analytics)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('m0'), outcomes.callback('m0'))
    await analytics.flush()
    analytics.track(trackMessage('m1'), () => {
      throw new Error('callback bug')
    })
    analytics.track(trackMessage('m2'), outcomes.callback('m2'))
    analytics.track(trackMessage('m3'), outcomes.callback('m3'))
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(events.error.map((e) => e.message)).toEqual(['callback bug'])
    expect(handled.map((e) => e.message)).toEqual(['callback bug'])
    expect(analytics.stats()).toMatchObject({ sent: 4, failed: 0 })
  })
})
