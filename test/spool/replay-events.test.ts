import { Analytics, DeliveryError, type DropInfo, type FlushInfo, type ReplayInfo } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { ackFile, deadPart, frame, segment, segmentFiles, spoolTestFile, wireMessage } from './helpers'

// Issue 22: replayed messages report their outcome through events (their callbacks went with the
// process that died): `replay` when they are taken over, `replayed` in `flush` and `drop` events,
// `stats().spool.replayed`. The gone client's part is made by hand (a dead pid on this host).

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

/** A dead client's part holding the records of `r0` … `r<count-1>`. */
async function leftBehind(dir: string, count: number): Promise<void> {
  const records = Array.from({ length: count }, (_, i) => frame(wireMessage(`r${i}`)))
  await deadPart(dir, { '000001.log': segment(...records) }, { key: 'replay-key', host: server.url })
}

interface Heard {
  replays: ReplayInfo[]
  flushes: FlushInfo[]
  drops: DropInfo[]
}

function client(dir: string, heard: Heard = { replays: [], flushes: [], drops: [] }): Analytics {
  return keep(new Analytics('replay-key', { host: server.url, spool: { dir }, errorHandler: () => undefined }))
    .on('replay', (info) => heard.replays.push(info))
    .on('flush', (info) => heard.flushes.push(info))
    .on('drop', (info) => heard.drops.push(info))
}

const sum = (infos: readonly { replayed?: number; count: number }[], key: 'replayed' | 'count'): number =>
  infos.reduce((total, info) => total + (info[key] ?? 0), 0)

describe('replay events', () => {
  it('replay counts what was taken over; flush events and stats say how many of what went out was replayed', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    await leftBehind(dir, 10)
    const heard: Heard = { replays: [], flushes: [], drops: [] }
    const analytics = client(dir, heard)
    const outcomes = new Outcomes()
    for (let i = 0; i < 5; i++) analytics.track(trackMessage(`n${i}`), outcomes.callback(`n${i}`))
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })

    expect(heard.replays).toEqual([{ count: 10, torn: 0 }])
    expect(sum(heard.flushes, 'count')).toBe(15)
    expect(sum(heard.flushes, 'replayed')).toBe(10)
    expect(heard.drops).toEqual([])
    expect(analytics.stats()).toMatchObject({ sent: 15, failed: 0 })
    expect(analytics.stats().spool).toMatchObject({ replayed: 10, torn: 0, onDiskOnly: 0 })
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 10; i++) expect(server.accepted.get(`r${i}`)).toBe(1)
    expect(server.acceptedMessages.find((m) => m.messageId === 'r3')).toMatchObject(wireMessage('r3'))
    expect(segmentFiles(dir)).toEqual([])
  })

  it('without a gone client: no replay event, no replayed in flush events, stats().spool.replayed 0', async () => {
    server = await startFaultServer()
    const heard: Heard = { replays: [], flushes: [], drops: [] }
    const analytics = client(tempDir(), heard)
    for (let i = 0; i < 5; i++) analytics.track(trackMessage(`n${i}`))
    await analytics.closeAndFlush()
    expect(heard.replays).toEqual([])
    expect(heard.flushes.length).toBeGreaterThan(0)
    expect(heard.flushes.every((f) => f.replayed === undefined)).toBe(true)
    expect(analytics.stats().spool).toMatchObject({ replayed: 0, torn: 0 })
  })

  it('replayed messages the service refuses (400) are dropped with replayed in the drop event, and their records go', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 400 }))
    const dir = tempDir()
    await leftBehind(dir, 10)
    const heard: Heard = { replays: [], flushes: [], drops: [] }
    const analytics = client(dir, heard)
    await analytics.closeAndFlush()

    expect(heard.replays).toEqual([{ count: 10, torn: 0 }])
    expect(heard.flushes).toEqual([])
    expect(sum(heard.drops, 'count')).toBe(10)
    expect(sum(heard.drops, 'replayed')).toBe(10)
    expect(heard.drops.every((d) => d.error instanceof DeliveryError && d.error.status === 400)).toBe(true)
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a wrong write key (401): dropped here with replayed, but the records stay for a client configured right', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 401 }))
    const dir = tempDir()
    await leftBehind(dir, 10)
    const heard: Heard = { replays: [], flushes: [], drops: [] }
    await client(dir, heard).closeAndFlush()
    expect(sum(heard.drops, 'replayed')).toBe(10)
    expect(segmentFiles(dir)).toHaveLength(1)
    expect(server.accepted.size).toBe(0)

    server.decide = () => ({ kind: 'status', status: 200 })
    const next: Heard = { replays: [], flushes: [], drops: [] }
    await client(dir, next).closeAndFlush()
    expect(next.replays).toEqual([{ count: 10, torn: 0 }])
    expect(sum(next.flushes, 'replayed')).toBe(10)
    for (let i = 0; i < 10; i++) expect(server.accepted.get(`r${i}`)).toBe(1)
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a large backlog (30,000 records in two segments, every 7th acked) is read back in pages and chunks: each unacked record once', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const ids = Array.from({ length: 30_000 }, (_, i) => `big${i}`)
    const acks = (from: number, to: number): Buffer => {
      const ordinals = ids.slice(from, to).flatMap((_, o) => (o % 7 === 0 ? [o] : []))
      return ackFile(...ordinals)
    }
    const part = (from: number, to: number): Buffer => segment(...ids.slice(from, to).map((id) => frame(wireMessage(id))))
    await deadPart(
      dir,
      {
        '000001.log': part(0, 18_000),
        '000001.ack': acks(0, 18_000),
        '000002.log': part(18_000, 30_000),
        '000002.ack': acks(18_000, 30_000),
      },
      { key: 'replay-key', host: server.url },
    )
    const expected = [...ids.slice(0, 18_000).filter((_, o) => o % 7 !== 0), ...ids.slice(18_000).filter((_, o) => o % 7 !== 0)]

    const heard: Heard = { replays: [], flushes: [], drops: [] }
    const analytics = keep(new Analytics('replay-key', { host: server.url, spool: { dir } }))
      .on('replay', (info) => heard.replays.push(info))
      .on('flush', (info) => heard.flushes.push(info))
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(heard.replays).toEqual([{ count: expected.length, torn: 0 }])
    expect(sum(heard.flushes, 'replayed')).toBe(expected.length)
    const arrived = server.acceptedMessages.map((m) => m.messageId as string)
    expect(arrived.length).toBe(expected.length)
    expect(new Set(arrived)).toEqual(new Set(expected))
    expect(segmentFiles(dir)).toEqual([])
  }, 60_000)
})
