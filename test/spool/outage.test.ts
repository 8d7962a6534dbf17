import { Analytics, ServiceUnavailableError, type ReplayInfo } from '../../src'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { segmentFiles, spoolTestFile } from './helpers'

// Issue 22: "Outages with a spool fail nothing: while the breaker is open, messages wait on disk
// until the service is back, and flush() settles once they are safely on disk, saying how many
// are waiting." The service answers 500 (the breaker opens), then 200.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

let isDown = true
const flaky = (): Promise<FaultServer> => {
  isDown = true
  return startFaultServer(() => ({ kind: 'status', status: isDown ? 500 : 200 }))
}

describe('an outage with a spool', () => {
  it('flush() resolves with { waiting } once the breaker opens; no callback fails; all arrive once the service is back', async () => {
    server = await flaky()
    const dir = tempDir()
    const errors: Error[] = []
    const breaker: string[] = []
    const analytics = keep(new Analytics('outage-key', { host: server.url, spool: { dir } }))
      .on('error', (err) => errors.push(err))
      .on('breaker', (change) => breaker.push(change.state))
    const outcomes = new Outcomes()
    for (let i = 0; i < 50; i++) analytics.track(trackMessage(`o${i}`), outcomes.callback(`o${i}`))

    expect(await analytics.flush()).toEqual({ waiting: 50 })
    expect(breaker).toEqual(['open'])
    expect(outcomes.settled).toBe(0)
    expect(analytics.stats()).toMatchObject({ failed: 0, breaker: expect.stringMatching(/open|probing/) })
    // Messages tracked while the breaker is open wait too, and fail nothing.
    for (let i = 50; i < 60; i++) analytics.track(trackMessage(`o${i}`), outcomes.callback(`o${i}`))
    expect(await analytics.flush()).toEqual({ waiting: 60 })
    expect(outcomes.settled).toBe(0)
    expect(segmentFiles(dir).length).toBeGreaterThan(0)

    isDown = false
    await until(() => outcomes.settled === 60, 60_000, 'every callback after the recovery')
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 60; i++) expect(server.accepted.get(`o${i}`)).toBe(1)
    expect(breaker).toEqual(['open', 'closed'])
    // The outage is reported once; no message failed.
    expect(errors.map((e) => e.name)).toEqual(['ServiceUnavailableError'])
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(analytics.stats()).toMatchObject({ sent: 60, failed: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 90_000)

  it('closeAndFlush() during the outage resolves { waiting }; the next client on the directory delivers them', async () => {
    server = await flaky()
    const dir = tempDir()
    const first = keep(new Analytics('outage-key', { host: server.url, spool: { dir }, errorHandler: () => undefined }))
    const outcomes = new Outcomes()
    for (let i = 0; i < 30; i++) first.track(trackMessage(`c${i}`), outcomes.callback(`c${i}`))
    expect(await first.closeAndFlush()).toEqual({ waiting: 30 })
    // Their callbacks end (the process may go): with an error that says where they wait.
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ ServiceUnavailableError: 30 })
    const error = outcomes.get('c0')?.error as ServiceUnavailableError
    expect(error.message).toMatch(/30 messages wait in the spool/)
    expect(error.message).toContain(dir)
    expect(server.accepted.size).toBe(0)
    expect(segmentFiles(dir).length).toBeGreaterThan(0)

    isDown = false
    const replays: ReplayInfo[] = []
    const next = keep(new Analytics('outage-key', { host: server.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    expect(await next.closeAndFlush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: 30, torn: 0 }])
    for (let i = 0; i < 30; i++) expect(server.accepted.get(`c${i}`)).toBe(1)
    expect(segmentFiles(dir)).toEqual([])
  }, 60_000)

  it('messages past the memory bound wait on disk only and are read back once the service is back, each request in order', async () => {
    server = await flaky()
    const dir = tempDir()
    const analytics = keep(
      new Analytics('outage-key', { host: server.url, spool: { dir }, maxQueueSize: 20, errorHandler: () => undefined }),
    )
    const outcomes = new Outcomes()
    for (let i = 0; i < 200; i++) analytics.track(trackMessage(`q${i}`), outcomes.callback(`q${i}`))
    expect(outcomes.errorNames()).toEqual({})
    expect(analytics.stats().spool?.onDiskOnly).toBeGreaterThanOrEqual(180)
    expect(await analytics.flush()).toEqual({ waiting: 200 })

    isDown = false
    await until(() => outcomes.settled === 200, 60_000, 'every callback')
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(new Set(server.acceptedMessages.map((m) => m.messageId)).size).toBe(200)
    // Requests run side by side, so only within a request is the order of the calls kept.
    for (const request of server.requests.filter((r) => r.status === 200)) {
      const numbers = request.messages.map((m) => Number(String(m.messageId).slice(1)))
      expect(numbers).toEqual([...numbers].sort((x, y) => x - y))
    }
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 60_000)

  it('closeAndFlush({ timeout }) against a service that never answers: TimeoutError for the callbacks, the records stay for the next client', async () => {
    let hangs = true
    server = await startFaultServer(() => (hangs ? { kind: 'hang' } : { kind: 'status', status: 200 }))
    const dir = tempDir()
    const first = keep(new Analytics('outage-key', { host: server.url, spool: { dir }, errorHandler: () => undefined }))
    const outcomes = new Outcomes()
    for (let i = 0; i < 25; i++) first.track(trackMessage(`t${i}`), outcomes.callback(`t${i}`))
    await until(() => server.arrivals > 0, 10_000, 'a request to hang')
    await first.closeAndFlush({ timeout: 300 })
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ TimeoutError: 25 })
    expect(segmentFiles(dir).length).toBeGreaterThan(0)

    hangs = false
    const replays: ReplayInfo[] = []
    const next = keep(new Analytics('outage-key', { host: server.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    expect(await next.closeAndFlush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: 25, torn: 0 }])
    for (let i = 0; i < 25; i++) expect(server.accepted.get(`t${i}`)).toBe(1)
    expect(segmentFiles(dir)).toEqual([])
  }, 60_000)
})
