import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { takeoverTiming } from '../../src/durability/spool/liveness'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { deadPid, filesUnder, frame, ownerJson, runChild, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 22: which parts a client takes over (a gone client's: a dead pid on this host, or from
// another host a heartbeat that stood still for a whole silence watched by the taker, issue 29) and which it leaves (a live client's), and takeovers in a chain: a
// client that took over a part dies in its turn, with some of those records delivered.

const { keep, tempDir } = spoolTestFile()
const servers: FaultServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

async function server(decide: FaultServer['decide'] = () => ({ kind: 'status', status: 200 })): Promise<FaultServer> {
  const s = await startFaultServer(decide)
  servers.push(s)
  return s
}

const MINUTE_AGO = (): Date => new Date(Date.now() - 60_000)

describe('which parts are taken over', () => {
  type Owner = 'dead pid' | 'live pid' | 'other host' | 'none' | 'garbage'
  it.each<[Owner, boolean, boolean]>([
    ['dead pid', false, true],
    ['live pid', false, false],
    // On this host the pid decides: a live process whose heartbeat stopped (its event loop was
    // blocked) keeps its part; only one 10 minutes old is a reused pid's.
    ['live pid', true, false],
    ['other host', false, false],
    // Another host's heartbeat is never compared with this clock: a first look only notes it (see
    // live-owner.test.ts for a part taken once its heartbeat stood still for a whole silence).
    ['other host', true, false],
    ['none', false, false],
    // No owner file: whose records these are is unknown, so they are never sent (docs/spool.md).
    ['none', true, false],
    ['garbage', false, false],
  ])('owner.json: %s, heartbeat a minute old: %s → taken over: %s', async (owner, isStale, taken) => {
    const sink = await server()
    const dir = tempDir()
    const part = path.join(dir, 'part-1-0f0f0f0f')
    mkdirSync(part)
    writeFileSync(path.join(part, '000001.log'), segment(frame(wireMessage('p0'))))
    const pid = owner === 'dead pid' ? await deadPid() : process.ppid
    const host = owner === 'other host' ? `not-${hostname()}` : hostname()
    if (owner !== 'none')
      writeFileSync(
        path.join(part, 'owner.json'),
        owner === 'garbage' ? '{"pid":' : ownerJson(pid, { key: 'who-key', host: sink.url }, host),
      )
    if (isStale && owner !== 'none') utimesSync(path.join(part, 'owner.json'), MINUTE_AGO(), MINUTE_AGO())
    if (isStale) utimesSync(part, MINUTE_AGO(), MINUTE_AGO())

    const replays: ReplayInfo[] = []
    const analytics = keep(new Analytics('who-key', { host: sink.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    await analytics.closeAndFlush()
    expect(replays).toEqual(taken ? [{ count: 1, torn: 0 }] : [])
    expect(sink.accepted.has('p0')).toBe(taken)
    expect(existsSync(part)).toBe(!taken)
    // A part left alone is left whole; one taken over is gone once its records are delivered.
    const left = ['part-1-0f0f0f0f/000001.log', ...(owner === 'none' ? [] : ['part-1-0f0f0f0f/owner.json'])]
    expect(filesUnder(dir)).toEqual(taken ? [] : left)
  })
})

describe('takeovers in a chain', () => {
  it('B takes over A, delivers some, is killed; C sends the rest, nothing twice', async () => {
    const dir = tempDir()
    const spec = (host: string, prefix: string, mode: string, count: number): string =>
      JSON.stringify({ host, dir, count, prefix, mode, pad: 5_000, everyMs: 5 })
    // One service for all three (only a client of the same key and host takes a part over): it
    // answers nothing while A runs, then takes B's first request and never answers the others.
    const sink = await server(() => ({ kind: 'hang' }))
    const a = runChild('track.mjs', [spec(sink.url, 'a', 'kill-self', 300)])
    expect((await a.done).signal).toBe('SIGKILL')
    const fromA = a.tagged('ACCEPTED')
    expect(fromA).toHaveLength(300)
    let served = 0
    sink.decide = () => (served++ === 0 ? { kind: 'status', status: 200 } : { kind: 'hang' })
    const b = runChild('track.mjs', [spec(sink.url, 'b', 'steady', 5)])
    await until(() => b.tagged('FLUSH').length > 0 && b.lines.includes('DONE'), 40_000, "B's first delivery")
    b.kill('SIGKILL')
    expect((await b.done).signal).toBe('SIGKILL')
    expect(b.tagged('REPLAY').map((line) => JSON.parse(line))).toEqual([{ count: 300, torn: 0 }])
    const deliveredByB = new Set(sink.accepted.keys())
    expect(deliveredByB.size).toBe(Number(b.tagged('FLUSH')[0]))
    expect(deliveredByB.size).toBeLessThan(300)
    // A's part now lies inside B's.
    expect(filesUnder(dir).some((f) => f.includes(`${path.sep}from-part-`))).toBe(true)

    sink.decide = () => ({ kind: 'status', status: 200 })
    const replays: ReplayInfo[] = []
    const c = keep(new Analytics('spool-child-key', { host: sink.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    expect(await c.closeAndFlush()).toEqual({ waiting: 0 })
    const all = [...fromA, ...b.tagged('ACCEPTED')]
    for (const id of all) expect(sink.accepted.get(id)).toBe(1)
    expect(sink.accepted.size).toBe(305)
    expect(replays).toEqual([{ count: 305 - deliveredByB.size, torn: 0 }])
    expect(readdirSync(dir)).toEqual([])
  }, 90_000)
})

describe('a live process whose event loop is blocked for longer than the silence that gives a part away', () => {
  afterEach(() => {
    takeoverTiming.staleMs = 60_000
  })

  it('keeps its part (on one host the pid decides, not the heartbeat); once it is killed, nothing it accepted is lost', async () => {
    // The silence after which another host's part is taken over, 1 s here (60 s in use): A's
    // heartbeat stands still for several of them, seen by two or more of B's looks (every 5 s).
    takeoverTiming.staleMs = 1_000
    const dir = tempDir()
    // One service and one key for A and B (only then may B take A's part): it answers nothing until A is dead.
    const sink = await server(() => ({ kind: 'hang' }))
    const replays: ReplayInfo[] = []
    const b = keep(new Analytics('spool-child-key', { host: sink.url, spool: { dir } })).on('replay', (info) => replays.push(info))
    // A tracks 10 messages (its service never answers), blocks its event loop for 12 s (its
    // heartbeat stands still), tracks late0 … late2 and is killed before any timer of its runs again.
    const a = runChild(
      'track.mjs',
      [JSON.stringify({ host: sink.url, dir, count: 10, prefix: 'a', mode: 'block', everyMs: 1, blockMs: 12_000 })],
      100_000,
    )
    expect((await a.done).signal).toBe('SIGKILL')
    sink.decide = () => ({ kind: 'status', status: 200 })
    expect(a.lines).toContain('NOT-TAKEN-OVER')
    const accepted = a.tagged('ACCEPTED')
    expect(accepted).toEqual([...Array.from({ length: 10 }, (_, i) => `a${i}`), 'late0', 'late1', 'late2'])
    // Dead now: B takes the whole part over at its next look (every 5 s) and sends all 13.
    await until(() => sink.accepted.size >= 13, 20_000, "A's messages delivered by B")
    await b.closeAndFlush()
    expect(replays).toEqual([{ count: 13, torn: 0 }])
    expect(accepted.filter((id) => !sink.accepted.has(id))).toEqual([])
    expect([...sink.accepted.values()].every((n) => n === 1)).toBe(true)
  }, 120_000)
})
