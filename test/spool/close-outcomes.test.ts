import { Analytics, ServiceUnavailableError } from '../../src'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { spoolTestFile } from './helpers'

// Issue 34: "A spool client closed during an outage leaves messages without an outcome": messages
// accepted after the outage breaker opened wait on the disk only, and their callbacks (and the
// promises of deliver.*) used to be parked in the spool flow, never settled by close().

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

it('closing during an outage gives every message kept on disk exactly one outcome, callbacks and deliver.* alike', async () => {
  server = await startFaultServer(() => ({ kind: 'status', status: 503 }))
  const dir = tempDir()
  const states: string[] = []
  const analytics = keep(
    new Analytics('close-key', { host: server.url, spool: { dir }, maxRetryTime: 2_000, errorHandler: () => undefined }),
  )
  analytics.on('breaker', (info) => states.push(info.state))
  const outcomes = new Outcomes()
  analytics.track(trackMessage('first'), outcomes.callback('first'))
  expect(await analytics.flush()).toEqual({ waiting: 1 })
  await until(() => states.includes('open'), 10_000, 'the breaker to open')

  for (let i = 0; i < 5; i++) analytics.track(trackMessage(`late${i}`), outcomes.callback(`late${i}`))
  let settled: unknown = 'pending'
  const delivered = analytics.deliver.track(trackMessage('awaited')).then((outcome) => (settled = outcome))
  expect(await analytics.closeAndFlush()).toEqual({ waiting: 7 })
  await delivered
  expect(settled).toMatchObject({ delivered: false, messageId: 'awaited' })
  expect((settled as { error: Error }).error).toBeInstanceOf(ServiceUnavailableError)
  expect(outcomes.notExactlyOnce()).toEqual([])
  expect(outcomes.errorNames()).toEqual({ ServiceUnavailableError: 6 })
  expect(String((outcomes.get('late0')?.error as Error).message)).toMatch(/wait in the spool/)
  expect(analytics.stats()).toMatchObject({ failed: 7 })
})
