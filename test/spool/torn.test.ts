import { readdirSync, statSync, truncateSync } from 'node:fs'
import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { ackFile, deadPart, filesUnder, frame, runChild, segment, segmentFiles, spoolTestFile, wireMessage } from './helpers'

// Issue 22: "Records carry a length and a checksum: a torn write at a crash is skipped and
// counted, never sent as garbage." Segments are written by hand in the spool's format (the magic
// ERSPOOL1, then u32 length | u32 crc32 | 'b' + JSON), in the part of a client whose pid is dead.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

const records = (prefix: string, count: number): Buffer[] => Array.from({ length: count }, (_, i) => frame(wireMessage(`${prefix}${i}`)))

/** Sends what `dir` holds through a new client; what it heard and what arrived. */
async function replay(dir: string, key = 'torn-key'): Promise<{ replays: ReplayInfo[]; analytics: Analytics; ids: string[] }> {
  const replays: ReplayInfo[] = []
  const analytics = keep(new Analytics(key, { host: server.url, spool: { dir } })).on('replay', (info) => replays.push(info))
  expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
  // Whatever arrived was a whole message: every body parsed, every message one of the records.
  expect(server.requests.every((r) => r.body !== undefined && r.messages.length > 0)).toBe(true)
  return { replays, analytics, ids: server.acceptedMessages.map((m) => m.messageId as string).sort() }
}

describe('torn and corrupt records in a part left behind', () => {
  it('sends the whole records, skips and counts a torn tail, a bad checksum and garbage, and honours the ack file', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const torn = frame(wireMessage('r5'))
    const badSum = frame(wireMessage('s3'))
    badSum[badSum.length - 3] ^= 0x20 // one bit of the payload flipped: the checksum no longer matches
    const acks = ackFile(1) // r1 had its outcome before the crash
    await deadPart(
      dir,
      {
        '000001.log': segment(...records('r', 5), torn.subarray(0, torn.length - 20)),
        '000001.ack': acks,
        '000002.log': segment(...records('s', 3), badSum),
        '000003.log': segment(...records('t', 2), Buffer.from([0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9])),
      },
      { key: 'torn-key', host: server.url },
    )

    const { replays, analytics, ids } = await replay(dir)
    expect(ids).toEqual(['r0', 'r2', 'r3', 'r4', 's0', 's1', 's2', 't0', 't1'])
    // At the take-over each file's records are counted and checked: the two cut-off files and s3
    // (its checksum fails, and no whole record follows it) end torn.
    expect(replays).toEqual([{ count: 9, torn: 3 }])
    expect(analytics.stats().spool).toMatchObject({ torn: 3, replayed: 9, onDiskOnly: 0 })
    expect(server.acceptedMessages.find((m) => m.messageId === 's2')).toMatchObject(wireMessage('s2'))
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a part holding only a torn record: nothing is sent, the torn record is counted', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const only = frame(wireMessage('x0'))
    await deadPart(dir, { '000001.log': segment(only.subarray(0, 6)) }, { key: 'torn-key', host: server.url })
    const { replays, analytics, ids } = await replay(dir)
    expect(ids).toEqual([])
    expect(server.arrivals).toBe(0)
    expect(replays).toEqual([{ count: 0, torn: 1 }])
    expect(analytics.stats().spool).toMatchObject({ torn: 1, replayed: 0 })
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a record with a wrong kind byte and a right checksum is not sent', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const wrongKind = frame(wireMessage('k1'), 'x' as 'b')
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('k0')), wrongKind) }, { key: 'torn-key', host: server.url })
    const { replays, analytics, ids } = await replay(dir)
    expect(ids).toEqual(['k0'])
    // Found at the take-over: the file ends in a record that is not whole.
    expect(replays).toEqual([{ count: 1, torn: 1 }])
    expect(analytics.stats().spool).toMatchObject({ torn: 1, replayed: 1, onDiskOnly: 0 })
  })

  it('a record whose checksum fails in the middle of a file is skipped, and the whole records after it are sent', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const badSum = frame(wireMessage('m1'))
    badSum[badSum.length - 5] ^= 0x01
    await deadPart(
      dir,
      { '000001.log': segment(frame(wireMessage('m0')), badSum, frame(wireMessage('m2'))) },
      { key: 'torn-key', host: server.url },
    )
    const { analytics, ids } = await replay(dir)
    expect(ids).toEqual(['m0', 'm2'])
    expect(analytics.stats().spool).toMatchObject({ torn: 1, replayed: 2, onDiskOnly: 0 })
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a file that does not begin with the magic is not read', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    await deadPart(
      dir,
      { '000001.log': Buffer.concat([Buffer.from('NOTSPOOL'), frame(wireMessage('f0'))]) },
      { key: 'torn-key', host: server.url },
    )
    const { replays, ids } = await replay(dir)
    expect(ids).toEqual([])
    expect(replays).toEqual([])
  })

  it("a real client's segment cut short after kill -9: every whole record is sent, the cut one counted", async () => {
    // The child's service never answers; then it does, for a client of the child's key and host.
    server = await startFaultServer(() => ({ kind: 'hang' }))
    const dir = tempDir()
    const child = runChild('track.mjs', [JSON.stringify({ host: server.url, dir, count: 50, prefix: 'c', mode: 'kill-self' })])
    expect((await child.done).signal).toBe('SIGKILL')
    server.decide = () => ({ kind: 'status', status: 200 })
    const [part] = readdirSync(dir)
    const [log] = filesUnder(path.join(dir, part)).filter((f) => f.endsWith('.log'))
    const file = path.join(dir, part, log)
    truncateSync(file, statSync(file).size - 7)

    const { replays, ids } = await replay(dir, 'spool-child-key')
    expect(replays).toEqual([{ count: 49, torn: 1 }])
    expect(ids).toEqual(Array.from({ length: 49 }, (_, i) => `c${i}`).sort())
    expect(segmentFiles(dir)).toEqual([])
  })
})
