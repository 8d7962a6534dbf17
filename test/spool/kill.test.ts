import { readdirSync } from 'node:fs'
import { Analytics, type ReplayInfo } from '../../src'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { resultOf, runChild, segmentFiles, spoolTestFile, type Child } from './helpers'

// Issue 22: what track() accepted survives kill -9. A child process (the built package) tracks
// messages with explicit messageIds and prints each one a call accepted; it dies by SIGKILL; then
// a second client on the same directory, with a working service, sends every one of them. No
// message is lost; a message arrives twice only with its one messageId and the same content, and
// only when the first process had it delivered (in flight when it died).

const { keep, tempDir } = spoolTestFile()
const servers: FaultServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

async function server(fault: 'ok' | 'hang'): Promise<FaultServer> {
  const s = await startFaultServer(() => (fault === 'hang' ? { kind: 'hang' } : { kind: 'status', status: 200 }))
  servers.push(s)
  return s
}

/** Runs the child and waits for it to die by SIGKILL; the ids it printed as accepted. */
async function accepted(child: Child): Promise<string[]> {
  const { signal, stderr } = await child.done
  expect(stderr).toBe('')
  expect(signal).toBe('SIGKILL')
  return child.tagged('ACCEPTED')
}

/**
 * Every accepted id arrived at `sink`; nothing else did but, at most, the one id after the last
 * accepted (its call may have written its record before the kill cut off the line saying so).
 * An id that arrived twice had arrived before the kill (`before`), with the same content.
 */
function expectNoneLost(sink: FaultServer, ids: string[], prefix: string, before: ReadonlyMap<string, number> = new Map()): void {
  const missing = ids.filter((id) => !sink.accepted.has(id))
  expect(missing).toEqual([])
  const last = Math.max(...ids.map((id) => Number(id.slice(prefix.length))))
  const allowed = new Set([...ids, `${prefix}${last + 1}`])
  expect([...sink.accepted.keys()].filter((id) => !allowed.has(id))).toEqual([])
  const twice = [...sink.accepted].filter(([, n]) => n > 1).map(([id]) => id)
  expect(twice.filter((id) => !before.has(id))).toEqual([])
  for (const id of twice) {
    const copies = new Set(sink.acceptedMessages.filter((m) => m.messageId === id).map((m) => JSON.stringify(m)))
    expect(copies.size).toBe(1)
  }
}

describe('kill -9 right after the calls, the service down', () => {
  it.each<['refuses connections' | 'never answers']>([['refuses connections'], ['never answers']])(
    '%s: a new client on the directory sends all 300 messages, and the directory ends empty',
    async (down) => {
      const dir = tempDir()
      // One service, down while the child runs, then back: only a client of the same key and host
      // may send what the child left.
      const sink = await server(down === 'never answers' ? 'hang' : 'ok')
      if (down === 'refuses connections') await sink.close()
      const child = runChild('track.mjs', [JSON.stringify({ host: sink.url, dir, count: 300, prefix: 'k', mode: 'kill-self' })])
      const ids = await accepted(child)
      expect(ids).toHaveLength(300)
      expect(segmentFiles(dir).length).toBeGreaterThan(0)

      if (down === 'refuses connections') await sink.reopen()
      sink.decide = () => ({ kind: 'status', status: 200 })
      const replays: ReplayInfo[] = []
      const analytics = keep(new Analytics('spool-child-key', { host: sink.url, spool: { dir } })).on('replay', (info) =>
        replays.push(info),
      )
      expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })

      expectNoneLost(sink, ids, 'k')
      expect(sink.accepted.size).toBe(300)
      expect([...sink.accepted.values()].every((n) => n === 1)).toBe(true)
      expect(replays).toEqual([{ count: 300, torn: 0 }])
      expect(analytics.stats().spool).toMatchObject({ replayed: 300, torn: 0, onDiskOnly: 0 })
      expect(readdirSync(dir)).toEqual([])
    },
    60_000,
  )
})

describe('kill -9 at a random moment while the child tracks at a steady rate', () => {
  // The child tracks 2 messages every 5 ms; it is killed once it has printed `at` accepted ids.
  async function killAtRandom(host: string, dir: string, prefix: string): Promise<{ ids: string[]; at: number }> {
    const at = 30 + Math.floor(Math.random() * 400)
    const child = runChild('track.mjs', [JSON.stringify({ host, dir, count: 5_000, prefix, mode: 'steady', perTick: 2, everyMs: 5 })])
    await until(() => child.tagged('ACCEPTED').length >= at || child.lines.includes('DONE'), 40_000, `${at} accepted ids`)
    child.kill('SIGKILL')
    const ids = await accepted(child)
    expect(child.lines).not.toContain('DONE')
    return { ids, at }
  }

  it('a service that never answers: a second process sends every accepted message', async () => {
    const dir = tempDir()
    const sink = await server('hang')
    const { ids, at } = await killAtRandom(sink.url, dir, 'h')
    expect(ids.length).toBeGreaterThanOrEqual(at)

    sink.decide = () => ({ kind: 'status', status: 200 })
    const second = runChild('replay.mjs', [JSON.stringify({ host: sink.url, dir })])
    expect(await second.done).toEqual({ code: 0, signal: null, stderr: '' })
    const result = resultOf(second)

    expectNoneLost(sink, ids, 'h')
    expect([...sink.accepted.values()].every((n) => n === 1)).toBe(true)
    expect(result.closed).toEqual({ waiting: 0 })
    expect(result.replays).toEqual([{ count: sink.accepted.size, torn: 0 }])
    expect(result.replayedInFlushes).toBe(sink.accepted.size)
    expect(result.stats.spool).toMatchObject({ replayed: sink.accepted.size, torn: 0 })
    expect(result.unhandled).toEqual([])
    expect(segmentFiles(dir)).toEqual([])
    expect(readdirSync(dir)).toEqual([])
  }, 90_000)

  it('a working service: what the child had not delivered comes from the second process, duplicates only of what was in flight', async () => {
    const dir = tempDir()
    const sink = await server('ok')
    const { ids } = await killAtRandom(sink.url, dir, 'w')
    const before = new Map(sink.accepted)

    const second = runChild('replay.mjs', [JSON.stringify({ host: sink.url, dir })])
    expect(await second.done).toEqual({ code: 0, signal: null, stderr: '' })
    const result = resultOf(second)

    expectNoneLost(sink, ids, 'w', before)
    // The second process sent exactly what the first left without an outcome: the ids that arrived
    // then are those missing before, plus duplicates of what was in flight at the kill.
    const replayed = result.replays.reduce((sum: number, r: ReplayInfo) => sum + r.count, 0)
    expect(result.stats.sent).toBe(replayed)
    expect(sink.acceptedMessages.length - [...before.values()].reduce((a, b) => a + b, 0)).toBe(replayed)
    expect(result.replayedInFlushes).toBe(replayed)
    expect(result.unhandled).toEqual([])
    expect(readdirSync(dir)).toEqual([])
  }, 90_000)
})
