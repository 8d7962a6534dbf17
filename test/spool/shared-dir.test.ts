import { existsSync, readdirSync, statSync } from 'node:fs'
import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { resultOf, runChild, spoolTestFile } from './helpers'

// Issue 22: "Two processes on one directory must not lose or double-send: ... give each its own
// part and let a survivor take over a dead one's." A survivor looks for parts of gone clients every
// 5 s (with its heartbeat); a dead pid on this host is gone at once.

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

describe('two processes write to one directory, one is killed', () => {
  it('the survivor takes over the dead one’s part and delivers its messages; every accepted id arrives once', async () => {
    const dir = tempDir()
    // Both send with one key to one service, which answers nothing until A is killed: nothing A
    // accepts is delivered before it dies. (Only a client of the same key and host takes a part over.)
    const sink = await server('hang')
    const spec = (host: string, prefix: string, mode: string, count: number, everyMs: number): string =>
      JSON.stringify({ host, dir, count, prefix, mode, perTick: 2, everyMs })
    const a = runChild('track.mjs', [spec(sink.url, 'a', 'steady', 5_000, 5)])
    const b = runChild('track.mjs', [spec(sink.url, 'b', 'serve', 600, 10)])
    const at = 50 + Math.floor(Math.random() * 300)
    await until(() => a.tagged('ACCEPTED').length >= at && b.tagged('ACCEPTED').length > 0, 40_000, 'both children tracking')
    a.kill('SIGKILL')
    expect((await a.done).signal).toBe('SIGKILL')
    sink.decide = () => ({ kind: 'status', status: 200 })
    const fromA = a.tagged('ACCEPTED')
    expect(a.tagged('PART')[0]).not.toBe(b.tagged('PART')[0])
    expect(path.dirname(a.tagged('PART')[0])).toBe(dir)

    // B goes on; within a few of its 5 s rounds it has found A's part and sent what A accepted.
    await until(() => fromA.every((id) => sink.accepted.has(id)), 45_000, "A's messages delivered by B")
    await until(() => b.lines.includes('DONE'), 40_000, 'B done tracking')
    b.write('close\n')
    expect(await b.done).toEqual({ code: 0, signal: null, stderr: '' })
    const result = resultOf(b)
    const fromB = b.tagged('ACCEPTED')
    expect(fromB).toHaveLength(600)

    const accepted = new Set([...fromA, ...fromB])
    const last = Number(fromA[fromA.length - 1].slice(1))
    // At most one more of A's: its record written, the kill before the line that said so.
    const extra = [...sink.accepted.keys()].filter((id) => !accepted.has(id))
    expect(extra.filter((id) => id !== `a${last + 1}`)).toEqual([])
    for (const id of accepted) expect(sink.accepted.get(id)).toBe(1)
    expect(sink.accepted.size).toBe(accepted.size + extra.length)
    const replayed = result.replays.reduce((n: number, r: ReplayInfo) => n + r.count, 0)
    expect(replayed).toBe(fromA.length + extra.length)
    expect(result.stats.spool).toMatchObject({ replayed, torn: 0 })
    expect(result.closed).toEqual({ waiting: 0 })
    expect(result.unhandled).toEqual([])
    expect(readdirSync(dir)).toEqual([])
  }, 120_000)
})

describe('two clients of one process on one directory', () => {
  it('each keeps its own part while open; closing one with messages waiting leaves them to a client of the same key and host, never to the other', async () => {
    const dir = tempDir()
    const sink = await server('ok')
    // A's service is down (503) until A has closed; then it is back.
    const serviceA = await startFaultServer(() => ({ kind: 'status', status: 503 }))
    servers.push(serviceA)
    const replays: ReplayInfo[] = []
    const a = keep(new Analytics('shared-a', { host: serviceA.url, spool: { dir }, errorHandler: () => undefined }))
    const b = keep(new Analytics('shared-b', { host: sink.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    const partA = a.stats().spool?.part as string
    const partB = b.stats().spool?.part as string
    expect(partA).not.toBe(partB)
    expect(readdirSync(dir).sort()).toEqual([path.basename(partA), path.basename(partB)].sort())

    const outcomesA = new Outcomes()
    for (let i = 0; i < 10; i++) a.track(trackMessage(`a${i}`), outcomesA.callback(`a${i}`))
    for (let i = 0; i < 10; i++) b.track(trackMessage(`b${i}`))
    await b.flush()
    expect(await a.flush()).toEqual({ waiting: 10 })
    expect(await a.closeAndFlush()).toEqual({ waiting: 10 })
    expect(outcomesA.notExactlyOnce()).toEqual([])
    expect(outcomesA.errorNames()).toEqual({ ServiceUnavailableError: 10 })

    // B looks for gone clients with each heartbeat (every 5 s): A's part is gone, but it is not B's
    // tenant (another write key): B never takes it, and none of A's messages reach B's service.
    for (let beats = 0; beats < 2; beats++) {
      const beat = statSync(path.join(partB, 'owner.json')).mtimeMs
      await until(() => statSync(path.join(partB, 'owner.json')).mtimeMs > beat, 20_000, "B's heartbeat")
    }
    expect(existsSync(partA)).toBe(true)
    expect(replays).toEqual([])
    expect([...sink.accepted.keys()].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`).sort())
    expect(await b.closeAndFlush()).toEqual({ waiting: 0 })

    // A client of A's tenant (its key, its host) takes them over and sends them, with A's key.
    serviceA.decide = () => ({ kind: 'status', status: 200 })
    const againReplays: ReplayInfo[] = []
    const again = keep(new Analytics('shared-a', { host: serviceA.url, spool: { dir } })).on('replay', (info) => againReplays.push(info))
    expect(await again.closeAndFlush()).toEqual({ waiting: 0 })
    expect(againReplays).toEqual([{ count: 10, torn: 0 }])
    expect([...serviceA.accepted.keys()].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`).sort())
    const keyA = `Basic ${Buffer.from('shared-a:').toString('base64')}`
    expect(serviceA.requests.filter((r) => r.messages.length > 0).every((r) => r.headers.authorization === keyA)).toBe(true)
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)
})
