import { Analytics } from '../../src'
import { startFaultServer, sleep, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { spoolTestFile } from './helpers'

// Issue 29, finding 6: "A healthy service makes the spool refuse messages as full": with
// maxBytes 1 MiB and a service answering in 20 ms, the spool refused messages while only ~60 were
// without an outcome: a segment (4 MiB) is deleted only once every record in it has one.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

it('a healthy service never makes a 1 MiB spool full: ~8,000 messages over 3 s at ~2,700 a second, none refused', async () => {
  server = await startFaultServer(() => ({ kind: 'delay', ms: 20, status: 200 }))
  const dir = tempDir()
  const analytics = keep(new Analytics('room-key', { host: server.url, spool: { dir, maxBytes: 1024 * 1024 }, flushInterval: 50 }))
  const outcomes = new Outcomes()
  let n = 0
  // 27 messages every 10 ms, each about 300 bytes: 1 MiB is ~3,500 of them, over a second of traffic.
  for (let tick = 0; tick < 300; tick++) {
    for (let i = 0; i < 27; i++, n++) analytics.track(trackMessage(`h${n}`), outcomes.callback(`h${n}`))
    await sleep(10)
  }
  expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
  expect(outcomes.notExactlyOnce()).toEqual([])
  expect(outcomes.errorNames()).toEqual({})
  expect(server.accepted.size).toBe(n)
}, 30_000)
