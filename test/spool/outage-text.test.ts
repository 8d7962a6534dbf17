import { Analytics, ServiceUnavailableError } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { spoolTestFile } from './helpers'

// Issue 30: "With a spool, the outage error says messages failed ('the message failed at once
// instead of being retried') while they wait on disk (stats().failed 0, flush() → { waiting: 10 })."
// The outage error's text says what becomes of the message: failed without a spool, kept on disk
// (and delivered once the service is back) with one. The service answers 500 all along.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
beforeEach(async () => {
  server = await startFaultServer(() => ({ kind: 'status', status: 500 }))
})
afterEach(async () => {
  await server.close()
})

function outageErrors(analytics: Analytics): ServiceUnavailableError[] {
  const errors: ServiceUnavailableError[] = []
  analytics.on('breaker', (change) => {
    if (change.state === 'open') errors.push(change.error)
  })
  return errors
}

describe('the outage error says what becomes of the message', () => {
  it('without a spool: the messages failed at once', async () => {
    const analytics = keep(new Analytics('text-key', { host: server.url, errorHandler: () => undefined }))
    const opened = outageErrors(analytics)
    const outcomes = new Outcomes()
    for (let i = 0; i < 10; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    await analytics.flush()
    expect(opened).toHaveLength(1)
    expect(opened[0].message).toMatch(/the message failed at once instead of being retried/)
    expect(opened[0].message).not.toMatch(/spool/)
    expect(outcomes.errorNames()).toEqual({ ServiceUnavailableError: 10 })
    expect(analytics.stats().failed).toBe(10)
  }, 30_000)

  it('with a spool: the messages are kept on disk and will be delivered once the service is back', async () => {
    const analytics = keep(new Analytics('text-key', { host: server.url, spool: { dir: tempDir() }, errorHandler: () => undefined }))
    const opened = outageErrors(analytics)
    const outcomes = new Outcomes()
    for (let i = 0; i < 10; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    expect(await analytics.flush()).toEqual({ waiting: 10 })
    expect(opened).toHaveLength(1)
    const text = opened[0].message
    expect(text).toMatch(/the message is kept in the spool on disk and will be delivered once the service is back/)
    expect(text).not.toMatch(/failed/)
    expect(outcomes.settled).toBe(0)
    expect(analytics.stats().failed).toBe(0)
  }, 30_000)
})
