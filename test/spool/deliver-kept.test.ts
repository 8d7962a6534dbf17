import { Analytics, DeliveryError, ServiceUnavailableError, type Delivery } from '../../src'
import { startFaultServer, sleep, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { spoolTestFile } from './helpers'

// Issue 29, finding 10: "deliver.* with a spool during an outage waits for the whole outage"
// (10 s of 503s, maxRetryTime 2 s: it settled 5.3 s after the service came back). It settles
// within the retry budget, as without a spool, with an outcome that says the message is kept on
// disk and will be delivered: { delivered: false, kept: true, messageId, error }.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
let isDown = true
beforeEach(async () => {
  isDown = true
  server = await startFaultServer(() => ({ kind: 'status', status: isDown ? 503 : 200 }))
})
afterEach(async () => {
  isDown = false
  await server.close()
})

/** The delivery, or 'still waiting' if it has not settled within a bound far past its retry budget. */
function settledOrWaiting(delivery: Promise<Delivery>): Promise<Delivery | 'still waiting'> {
  return Promise.race([delivery, sleep(10_000).then(() => 'still waiting' as const)])
}

function client(): Analytics {
  return keep(
    new Analytics('kept-key', {
      host: server.url,
      spool: { dir: tempDir() },
      maxRetryTime: 500,
      retryDelay: 50,
      errorHandler: () => undefined,
    }),
  )
}

describe('deliver.* with a spool while the service answers 503', () => {
  it('settles while the service is still down, kept: true with the error; the message is delivered once it is back', async () => {
    const analytics = client()
    const outcome = await settledOrWaiting(analytics.deliver.track(trackMessage('d0')))
    // The service was down all along: settled within the retry budget, not delivered, kept.
    expect(isDown).toBe(true)
    expect(outcome).toMatchObject({ delivered: false, kept: true, messageId: 'd0' })
    const { error } = outcome as Delivery & { delivered: false }
    expect(error instanceof ServiceUnavailableError || (error instanceof DeliveryError && error.status === 503)).toBe(true)
    expect(server.accepted.size).toBe(0)

    isDown = false
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(server.accepted.get('d0')).toBe(1)
  }, 30_000)

  it('once the breaker is open, a new deliver.* settles at once as kept (ServiceUnavailableError); a callback still gets its final outcome', async () => {
    const analytics = client()
    const breaker: string[] = []
    analytics.on('breaker', (change) => breaker.push(change.state))
    const outcomes = new Outcomes()
    for (let i = 0; i < 5; i++) analytics.track(trackMessage(`c${i}`), outcomes.callback(`c${i}`))
    await analytics.flush()
    expect(breaker).toEqual(['open'])

    const outcome = await settledOrWaiting(analytics.deliver.track(trackMessage('d1')))
    expect(isDown).toBe(true)
    expect(outcome).toMatchObject({ delivered: false, kept: true, messageId: 'd1' })
    expect((outcome as Delivery & { delivered: false }).error).toBeInstanceOf(ServiceUnavailableError)
    expect((outcome as Delivery & { delivered: false }).error.message).toMatch(/kept in the spool/)
    // Plain callbacks are not told early: they get their one outcome, delivery, after the outage.
    expect(outcomes.settled).toBe(0)

    isDown = false
    await until(() => outcomes.settled === 5 && server.accepted.has('d1'), 30_000, 'delivery after the outage')
    expect(outcomes.errorNames()).toEqual({})
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(server.accepted.get('d1')).toBe(1)
  }, 60_000)

  it('a deliver.* waiting in memory behind a request when the breaker opens settles kept then, not at a later probe', async () => {
    const analytics = keep(
      new Analytics('kept-key', {
        host: server.url,
        spool: { dir: tempDir() },
        maxRetryTime: 500,
        retryDelay: 50,
        maxInFlight: 1,
        errorHandler: () => undefined,
      }),
    )
    const breaker: string[] = []
    analytics.on('breaker', (change) => breaker.push(change.state))
    const first = analytics.deliver.track(trackMessage('q0'))
    await new Promise((resolve) => setImmediate(resolve))
    // One request at a time: q1 … q4 wait in memory (and on disk) behind q0's.
    const behind = [1, 2, 3, 4].map((i) => analytics.deliver.track(trackMessage(`q${i}`)))
    const outcomes = await Promise.all([first, ...behind].map(settledOrWaiting))
    expect(isDown).toBe(true)
    expect(breaker).toContain('open')
    for (const [i, outcome] of outcomes.entries()) expect(outcome).toMatchObject({ delivered: false, kept: true, messageId: `q${i}` })

    // Still delivered, by the probes once the service is back.
    isDown = false
    await until(() => server.accepted.size === 5, 20_000, 'q0 … q4 delivered after the outage')
    for (let i = 0; i < 5; i++) expect(server.accepted.get(`q${i}`)).toBe(1)
  }, 30_000)

  it('without an outage, deliver.* with a spool settles delivered, with no kept field', async () => {
    isDown = false
    const outcome = await client().deliver.track(trackMessage('ok0'))
    expect(outcome).toEqual({ delivered: true, messageId: 'ok0' })
  })
})
