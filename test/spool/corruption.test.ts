import { Analytics } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { fuzz, fuzzLarge, replay, replayCore, spooled } from './corruption-model'
import { deadPart, deadPid, segmentFiles, spoolTestFile } from './helpers'

// Issue 32, "corruption fuzzing with a blast radius": a segment and its ack file, damaged at every
// offset (a bit flipped; the file cut short there), read back by the spool's code: never a
// throw, never a record that was not written, at most the damaged record lost and then counted
// torn, the rest sent. `npm run soak:corruption` does it for a 1 MiB segment.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer | undefined
afterEach(async () => {
  await server?.close()
})

it('every offset of a segment of 12 records and of its ack file: at most the damaged record lost, and counted', async () => {
  const pid = await deadPid()
  const s = spooled(12, 40, 4)
  const problems: string[] = []
  const { runs } = fuzz(
    s,
    (p) => problems.push(p),
    (files) => replay(files, pid),
  )
  expect(problems.slice(0, 10)).toEqual([])
  expect(runs).toBe(2 * (s.segment.length + s.ack.length))
}, 30_000)

// npm run soak:corruption: a 1 MiB segment (EVENTRAIL_CORRUPTION_BYTES): a bit flipped at every
// offset (16 offsets a run, in 16 records), a cut every EVENTRAIL_CORRUPTION_CUT_STRIDE bytes (16).
const big = Number(process.env.EVENTRAIL_CORRUPTION_BYTES ?? 0)
const cutStride = Number(process.env.EVENTRAIL_CORRUPTION_CUT_STRIDE ?? 16)
;(big > 0 ? it : it.skip)(
  `every offset of a segment of ${big} bytes and of its ack file (the soak)`,
  () => {
    // Records of ~4,160 bytes on disk: enough of them for a segment of at least `big` bytes.
    const s = spooled(Math.ceil(big / 4_150), 4_000, 7)
    const problems: string[] = []
    const { runs, flipped, cuts } = fuzzLarge(
      s,
      16,
      cutStride,
      (p) => {
        if (problems.push(p) <= 20) process.stdout.write(`PROBLEM ${p}\n`)
      },
      replayCore,
    )
    process.stdout.write(
      `CORRUPTION segment=${s.segment.length} bytes, ${s.texts.length} records, ack file ${s.ack.length} bytes: ${flipped} offsets with a bit flipped, ${cuts} cuts (every ${cutStride} bytes), every offset of the ack file flipped and cut; ${runs} runs, problems=${problems.length}\n`,
    )
    expect(problems.length).toBe(0)
  },
  3_600_000,
)

it('a length flipped in the middle of a real segment: a client sends every other record to the service, and counts one torn', async () => {
  server = await startFaultServer()
  const dir = tempDir()
  const s = spooled(30, 100, 1000)
  const damaged = Buffer.from(s.segment)
  // Record 10's length: its high byte set, a length no record has.
  damaged[s.ends[9] + 3] ^= 0x40
  await deadPart(dir, { '000001.log': damaged }, { key: 'fuzz-key', host: server.url })
  const analytics = keep(new Analytics('fuzz-key', { host: server.url, spool: { dir } }))
  await analytics.closeAndFlush()
  const ids = server.acceptedMessages.map((m) => m.messageId as string)
  expect(ids.sort()).toEqual(
    Array.from({ length: 30 }, (_, i) => `c${i}`)
      .filter((id) => id !== 'c10')
      .sort(),
  )
  expect(server.acceptedMessages.find((m) => m.messageId === 'c11')?.properties).toEqual({ id: 'c11', pad: 'p'.repeat(100) })
  expect(analytics.stats().spool).toMatchObject({ torn: 1, replayed: 29 })
  expect(segmentFiles(dir)).toEqual([])
})
