import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { readSegment, segmentFiles, spoolTestFile } from './helpers'

// Issue 29, finding 7: "A kept record pins its whole segment": with 1 request in 100 answered 403,
// maxBytes 8 MiB refused 11,121 of 21,120 messages as full while 90 (~68 KB) were kept. A record
// kept for a client set up right (401/403/redirect) is copied forward once the rest of its segment
// is done, and the segment goes: disk use follows the records without an outcome.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

const MIB = 1024 * 1024
const PAD = 'p'.repeat(900)

describe('records kept for a client set up right (403)', () => {
  it('1 request in 40 refused 403: 6 MiB through a 1 MiB spool, none refused as full; the files hold the kept records, and the next client sends them', async () => {
    server = await startFaultServer((index) => ({ kind: 'status', status: index % 40 === 7 ? 403 : 200 }))
    const dir = tempDir()
    const analytics = keep(
      new Analytics('kept-key', { host: server.url, spool: { dir, maxBytes: MIB }, flushAt: 50, errorHandler: () => undefined }),
    )
    const outcomes = new Outcomes()
    const count = 6_000
    for (let i = 0; i < count; i++) {
      analytics.track({ ...trackMessage(`k${i}`), properties: { pad: PAD } }, outcomes.callback(`k${i}`))
      if (i % 50 === 49) await analytics.flush()
    }
    await analytics.flush()
    expect(outcomes.notExactlyOnce()).toEqual([])
    const names = outcomes.errorNames()
    // Refused as full: none. Refused by the service (403): those of one request in forty.
    expect(names.QueueFullError).toBeUndefined()
    const refused = server.requests.filter((r) => r.status === 403).flatMap((r) => r.messages.map((m: any) => m.messageId as string))
    expect(refused.length).toBeGreaterThan(0)
    expect(names).toEqual({ DeliveryError: refused.length })
    expect(server.accepted.size + refused.length).toBe(count)
    // On disk: the kept records (about 1 KB each) and at most about one segment (64 KiB) besides.
    const bytes = analytics.stats().spool?.bytes as number
    expect(bytes).toBeLessThan(refused.length * 1100 + 2 * 64 * 1024)

    await analytics.closeAndFlush()
    // The files hold each kept record, once (copied forward, the originals gone). A segment that
    // is mostly kept records stays whole (its delivered ones are in its ack file): records that
    // had their outcome are at most as many as the kept ones, plus one segment (~60 records).
    const onDisk = segmentFiles(dir).flatMap((f) => readSegment(path.join(dir, f)).messages.map((m) => m.messageId as string))
    expect(new Set(onDisk).size).toBe(onDisk.length)
    for (const id of refused) expect(onDisk).toContain(id)
    expect(onDisk.length).toBeLessThanOrEqual(2 * refused.length + 70)

    // A client set up right (here: the service now takes them) sends them, each once.
    server.decide = () => ({ kind: 'status', status: 200 })
    const replays: ReplayInfo[] = []
    const next = keep(new Analytics('kept-key', { host: server.url, spool: { dir, maxBytes: MIB } })).on('replay', (info) =>
      replays.push(info),
    )
    expect(await next.closeAndFlush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: refused.length, torn: 0 }])
    for (const id of refused) expect(server.accepted.get(id)).toBe(1)
    expect(segmentFiles(dir)).toEqual([])
  }, 30_000)
})
