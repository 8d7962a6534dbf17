import { Analytics, type BreakerChange } from '../../src'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { segmentFiles, spoolTestFile } from './helpers'

// Issue 32, part 6: `fallbackHosts` with a spool. The primary down: the spool sends through the
// fallback and empties; every host down: messages wait on disk as without a fallback, and go out
// through the first host that answers again.

const { keep, tempDir } = spoolTestFile()
let primary: FaultServer
let fallback: FaultServer
afterEach(async () => {
  await Promise.all([primary?.close(), fallback?.close()])
})

async function twoServices(down: { primary: boolean; fallback: boolean }): Promise<typeof down> {
  primary = await startFaultServer(() => ({ kind: 'status', status: down.primary ? 500 : 200 }))
  fallback = await startFaultServer(() => ({ kind: 'status', status: down.fallback ? 500 : 200 }))
  return down
}

describe('fallbackHosts with a spool', () => {
  it('primary down: delivered through the fallback, nothing waits on disk', async () => {
    await twoServices({ primary: true, fallback: false })
    const dir = tempDir()
    const a = keep(new Analytics('failover-key', { host: primary.url, fallbackHosts: [fallback.url], spool: { dir } }))
    const outcomes = new Outcomes()
    for (let i = 0; i < 50; i++) a.track(trackMessage(`s${i}`), outcomes.callback(`s${i}`))

    expect(await a.flush()).toEqual({ waiting: 0 })
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 50; i++) expect(fallback.accepted.get(`s${i}`)).toBeGreaterThanOrEqual(1)
    expect(primary.accepted.size).toBe(0)
    expect(await a.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 20_000)

  it('both down: messages wait on disk, then go out through the fallback once it answers; nothing lost', async () => {
    const down = await twoServices({ primary: true, fallback: true })
    const dir = tempDir()
    const changes: BreakerChange[] = []
    const a = keep(
      new Analytics('failover-key', { host: primary.url, fallbackHosts: [fallback.url], spool: { dir }, errorHandler: () => undefined }),
    ).on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    for (let i = 0; i < 50; i++) a.track(trackMessage(`w${i}`), outcomes.callback(`w${i}`))

    expect(await a.flush()).toEqual({ waiting: 50 })
    expect(outcomes.settled).toBe(0)
    expect(changes.map((c) => [c.state, c.host, c.activeHost])).toEqual([
      ['open', primary.url, fallback.url],
      ['open', fallback.url, undefined],
    ])

    down.fallback = false
    await until(() => outcomes.settled === 50, 60_000, 'every callback once the fallback answers')
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 50; i++) expect(fallback.accepted.get(`w${i}`)).toBeGreaterThanOrEqual(1)
    expect(changes.at(-1)).toMatchObject({ state: 'closed', host: fallback.url, activeHost: fallback.url })
    expect(a.stats()).toMatchObject({ breaker: 'closed', failed: 0, sent: 50 })
    expect(await a.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 70_000)
})
