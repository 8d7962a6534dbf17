import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { takeoverTiming } from '../../src/durability/spool/liveness'
import { startFaultServer, sleep, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { filesUnder, frame, ownerJson, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 29, finding 8: "A live client's part is taken over and what it accepted is lost" (another
// host, the client silent once for 31 s; this host, a clock 11 minutes ahead). A heartbeat is
// never compared with the taker's clock: a part is taken only once its heartbeat stood still for a
// whole silence watched by the taker; and a take-over never deletes what its owner appended after.

const { keep, tempDir } = spoolTestFile()
let sink: FaultServer
beforeEach(async () => {
  sink = await startFaultServer()
})
afterEach(async () => {
  await sink.close()
  takeoverTiming.staleMs = 60_000
})

const KEY = 'live-key'
const ago = (ms: number): Date => new Date(Date.now() - ms)

/** A part of a client of KEY that is alive (pid, host) and whose heartbeat the taker's clock sees `ageMs` old. */
function livePart(dir: string, name: string, ids: string[], pid: number, host: string, ageMs: number): string {
  const part = path.join(dir, name)
  mkdirSync(part, { mode: 0o700 })
  writeFileSync(path.join(part, '000001.log'), segment(...ids.map((id) => frame(wireMessage(id)))))
  writeFileSync(path.join(part, 'owner.json'), ownerJson(pid, { key: KEY, host: sink.url }, host))
  utimesSync(path.join(part, 'owner.json'), ago(ageMs), ago(ageMs))
  return part
}

function client(dir: string, replays: ReplayInfo[] = []): Analytics {
  return keep(new Analytics(KEY, { host: sink.url, spool: { dir } })).on('replay', (info) => replays.push(info))
}

describe('a live client is not taken for gone by a clock', () => {
  it('another host, its heartbeat 31 s old at the first look (it was paused): its part stays whole, nothing of it is sent', async () => {
    const dir = tempDir()
    const part = livePart(dir, 'part-4242-0a0a0a0a', ['h0', 'h1', 'h2'], 4242, `not-${hostname()}`, 31_000)
    const replays: ReplayInfo[] = []
    await client(dir, replays).closeAndFlush()
    expect(replays).toEqual([])
    expect(sink.accepted.size).toBe(0)
    expect(filesUnder(part)).toEqual(['000001.log', 'owner.json'])
  })

  it('this host, a live pid whose heartbeat this clock sees 11 minutes old (a clock ahead): its part stays whole', async () => {
    const dir = tempDir()
    const part = livePart(dir, `part-${process.ppid}-0b0b0b0b`, ['c0', 'c1'], process.ppid, hostname(), 11 * 60_000)
    const replays: ReplayInfo[] = []
    await client(dir, replays).closeAndFlush()
    expect(replays).toEqual([])
    expect(sink.accepted.size).toBe(0)
    expect(filesUnder(part)).toEqual(['000001.log', 'owner.json'])
  })

  it('another host: a part whose heartbeat stood still for the silence is taken; one whose heartbeat moved (even backwards) is not', async () => {
    takeoverTiming.staleMs = 300
    const dir = tempDir()
    const other = `not-${hostname()}`
    livePart(dir, 'part-5001-0c0c0c0c', ['still0', 'still1'], 5001, other, 1_000)
    const moving = livePart(dir, 'part-5002-0d0d0d0d', ['moving0'], 5002, other, 1_000)
    // A first look only notes the heartbeats.
    await client(dir).closeAndFlush()
    expect(sink.accepted.size).toBe(0)
    await sleep(400)
    // The moving one beats: to a time an hour back (its clock is wrong), which still is a beat.
    utimesSync(path.join(moving, 'owner.json'), ago(3_600_000), ago(3_600_000))
    const replays: ReplayInfo[] = []
    await client(dir, replays).closeAndFlush()
    expect(replays).toEqual([{ count: 2, torn: 0 }])
    expect([...sink.accepted.keys()].sort()).toEqual(['still0', 'still1'])
    expect(readdirSync(dir)).toEqual(['part-5002-0d0d0d0d'])
  })
})

describe('an owner that appends after its part was taken over', () => {
  it('the taker does not delete its segment: the records appended after the take-over are sent too', async () => {
    takeoverTiming.staleMs = 100
    const dir = tempDir()
    livePart(dir, 'part-6001-0e0e0e0e', ['t0', 't1', 't2'], 6001, `not-${hostname()}`, 1_000)
    await client(dir).closeAndFlush()
    await sleep(200)
    const replays: ReplayInfo[] = []
    const taker = client(dir, replays)
    // The part now lies in the taker's; its owner was alive after all and appends through the
    // descriptor it holds (the file moved with the part) before it notices.
    const [moved] = filesUnder(dir).filter((f) => f.endsWith('000001.log'))
    expect(moved).toMatch(/from-part-6001-0e0e0e0e/)
    appendFileSync(path.join(dir, moved), Buffer.concat([frame(wireMessage('t3')), frame(wireMessage('t4'))]))
    expect(await taker.closeAndFlush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: 3, torn: 0 }])
    expect([...sink.accepted.keys()].sort()).toEqual(['t0', 't1', 't2', 't3', 't4'])
    expect([...sink.accepted.values()].every((n) => n === 1)).toBe(true)
    expect(existsSync(path.join(dir, moved))).toBe(false)
  })
})

describe('an owner paused while another client takes its part over', () => {
  it('notices before it writes again, reads its waiting records where they went, and goes on in a new part: nothing lost', async () => {
    let isDown = true
    sink.decide = () => ({ kind: 'status', status: isDown ? 503 : 200 })
    const dir = tempDir()
    const owner = keep(
      new Analytics(KEY, { host: sink.url, spool: { dir }, maxRetryTime: 200, retryDelay: 20, errorHandler: () => undefined }),
    )
    const first = owner.stats().spool?.part as string
    const outcomes = new Outcomes()
    for (let i = 0; i < 20; i++) owner.track(trackMessage(`o${i}`), outcomes.callback(`o${i}`))
    expect(await owner.flush()).toEqual({ waiting: 20 })
    // The breaker is open: these wait on the disk only.
    for (let i = 20; i < 40; i++) owner.track(trackMessage(`o${i}`), outcomes.callback(`o${i}`))
    expect(owner.stats().spool?.onDiskOnly).toBeGreaterThan(0)

    // Another client takes the part over (a rename into its own part) while the owner is paused.
    const taker = path.join(dir, 'part-7001-0f1f2f3f')
    mkdirSync(taker, { mode: 0o700 })
    renameSync(first, path.join(taker, `from-${path.basename(first)}`))
    const pause = new Int32Array(new SharedArrayBuffer(4))
    Atomics.wait(pause, 0, 0, 3_500)

    for (let i = 40; i < 50; i++) owner.track(trackMessage(`o${i}`), outcomes.callback(`o${i}`))
    const next = owner.stats().spool?.part as string
    expect(next).not.toBe(first)
    expect(existsSync(next)).toBe(true)

    isDown = false
    await until(() => outcomes.settled === 50, 15_000, 'every outcome after the outage')
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 50; i++) expect(sink.accepted.get(`o${i}`)).toBe(1)
    expect(await owner.closeAndFlush()).toEqual({ waiting: 0 })
  }, 30_000)
})
