import { hostname } from 'node:os'
import { Backlog } from '../../src/durability/spool/backlog'
import { SegmentStore } from '../../src/durability/spool/segments'
import { takeOverParts } from '../../src/durability/spool/takeover'
import { countFrames, isSegmentStart, readFrames, SEGMENT_MAGIC } from '../../src/durability/spool/frame'
import { ordinalOfAck } from '../../src/durability/spool/segment-files'
import { CrashFs } from './crash-fs'
import { ackFile, frame, segment, wireMessage } from './helpers'

// Issue 32, "corruption fuzzing with a blast radius": a gone client's segment and ack file,
// damaged (a bit flipped, or cut short, at an offset), are taken over and read back by the
// spool's own code (takeOverParts, SegmentStore, Backlog, on an in-memory disk); what it hands out
// to be sent is compared with what was written.

/** A gone client's files: a segment of `count` records (texts of about `bytes` each), every `ackEvery`th acked. */
export interface Spooled {
  readonly segment: Buffer
  readonly ack: Buffer
  /** The text of each record, by ordinal. */
  readonly texts: string[]
  /** Where each record ends in the segment. */
  readonly ends: number[]
  readonly acked: ReadonlySet<number>
}

export function spooled(count: number, bytes: number, ackEvery: number): Spooled {
  const records = Array.from({ length: count }, (_, i) =>
    frame({ ...wireMessage(`c${i}`), properties: { id: `c${i}`, pad: 'p'.repeat(bytes) } }),
  )
  const texts = records.map((r) => r.toString('utf8', 9))
  const ends: number[] = []
  let at = 8
  for (const r of records) ends.push((at += r.length))
  const acked = new Set(texts.flatMap((_, o) => (o % ackEvery === ackEvery - 1 ? [o] : [])))
  return { segment: segment(...records), ack: ackFile(...acked), texts, ends, acked }
}

/** What the spool read back from a part holding `files`: the texts it would send, and how many it counted torn. */
export function replay(files: Record<string, Buffer>, pid: number): { texts: string[]; torn: number } {
  const disk = new CrashFs({ random: () => 0.5 })
  const fs = disk.fs
  const tenant = 'fuzz-tenant'
  const gone = `/fuzz/part-${pid}-gone`
  disk.put(`${gone}/owner.json`, Buffer.from(JSON.stringify({ pid, host: hostname(), tenant })))
  for (const [name, data] of Object.entries(files)) disk.put(`${gone}/${name}`, data)
  fs.mkdirSync('/fuzz/part-mine', { recursive: true })
  const store = new SegmentStore(fs, 1 << 20)
  const backlog = new Backlog(fs, store)
  takeOverParts(fs, '/fuzz', '/fuzz/part-mine', tenant, store, backlog)
  const texts: string[] = []
  for (;;) {
    const records = backlog.read(10_000, 1 << 26)
    if (records.length === 0) break
    for (const r of records) texts.push(r.text)
    store.ack(records.map((r) => r.ref))
  }
  return { texts, torn: backlog.torn }
}

const indexes = new WeakMap<Spooled, Map<string, number>>()

/**
 * What a damage may cost: at most `lost` of the records not acked go unsent; an acked record is
 * sent again only when the ack file was damaged (`ackDamaged`); nothing else differs.
 */
export function check(
  what: string,
  s: Spooled,
  got: { texts: string[]; torn: number },
  lost: ReadonlySet<number>,
  ackDamaged = false,
  damaged = true,
): string[] {
  const problems: string[] = []
  let index = indexes.get(s)
  if (index === undefined) indexes.set(s, (index = new Map(s.texts.map((t, o) => [t, o]))))
  const sent = new Set<number>()
  for (const text of got.texts) {
    const o = index.get(text)
    if (o === undefined) problems.push(`${what}: sent a record never written: ${text.slice(0, 80)}`)
    else if (sent.has(o)) problems.push(`${what}: sent record ${o} twice`)
    else if (s.acked.has(o) && !ackDamaged) problems.push(`${what}: sent record ${o}, which was acked`)
    else sent.add(o)
  }
  let missing = 0
  for (let o = 0; o < s.texts.length; o++) {
    if (s.acked.has(o) || sent.has(o)) continue
    if (!lost.has(o)) problems.push(`${what}: record ${o} (not damaged) was not sent`)
    missing += 1
  }
  // A record cut short or damaged is counted; records a cut took away whole are gone without a trace.
  if (damaged && missing > 0 && got.torn < 1) problems.push(`${what}: ${missing} records unsent, none counted torn`)
  return problems
}

/**
 * The same as {@link replay}, through the functions its take-over and read-back use (the magic
 * check, the ack entries' check, `countFrames`, `readFrames`) without the files: fast enough for
 * every offset of a 1 MiB segment.
 */
export function replayCore(files: Record<string, Buffer>): { texts: string[]; torn: number } {
  const data = files['000001.log']
  if (!isSegmentStart(data)) return { texts: [], torn: 0 }
  const ack = files['000001.ack'] ?? Buffer.alloc(0)
  const acked = new Set<number>()
  for (let at = 0; at + 4 <= ack.length; at += 4) {
    const o = ordinalOfAck(ack.readUInt32LE(at))
    if (o >= 0) acked.add(o)
  }
  const body = data.subarray(SEGMENT_MAGIC.length)
  const keep = (o: number): boolean => !acked.has(o)
  const { count, bad } = countFrames(body, keep)
  const run = readFrames(body, 0, count, keep, true)
  return { texts: run.frames.map((f) => f.text), torn: (bad ? 1 : 0) + run.skipped + (run.bad ? 1 : 0) }
}

/** The records a damage at `offset` of the segment may cost: the one it is in (none in the magic). */
export function recordAt(s: Spooled, offset: number): Set<number> {
  const o = s.ends.findIndex((end) => offset < end)
  return new Set(offset < 8 || o < 0 ? [] : [o])
}

/** Every check at every offset: a bit flipped (bit `offset % 8`), and the file cut there; the segment, then the ack file. */
export function fuzz(
  s: Spooled,
  onProblem: (problem: string) => void,
  read: (files: Record<string, Buffer>) => { texts: string[]; torn: number },
): { runs: number } {
  let runs = 0
  const afterCut = (t: number): Set<number> => new Set(s.texts.flatMap((_, o) => (s.ends[o] > t ? [o] : [])))
  for (let at = 0; at < s.segment.length; at++) {
    const flipped = Buffer.from(s.segment)
    flipped[at] ^= 1 << (at % 8)
    for (const p of check(
      `segment bit ${at * 8 + (at % 8)} flipped`,
      s,
      read({ '000001.log': flipped, '000001.ack': s.ack }),
      recordAt(s, at),
    ))
      onProblem(p)
    for (const p of check(
      `segment cut at ${at}`,
      s,
      read({ '000001.log': s.segment.subarray(0, at), '000001.ack': s.ack }),
      afterCut(at),
      false,
      at > 8 && !s.ends.includes(at),
    ))
      onProblem(p)
    runs += 2
  }
  for (let at = 0; at < s.ack.length; at++) {
    const flipped = Buffer.from(s.ack)
    flipped[at] ^= 1 << (at % 8)
    // A damaged ack costs no record: at worst the one it acked is sent again.
    for (const p of check(
      `ack bit ${at * 8 + (at % 8)} flipped`,
      s,
      read({ '000001.log': s.segment, '000001.ack': flipped }),
      new Set(),
      true,
    ))
      onProblem(p)
    for (const p of check(`ack cut at ${at}`, s, read({ '000001.log': s.segment, '000001.ack': s.ack.subarray(0, at) }), new Set(), true))
      onProblem(p)
    runs += 2
  }
  return { runs }
}

/**
 * The same checks for a large segment, in fewer runs: each run flips a bit at `spread` offsets a
 * `segment.length / spread` apart (in as many records; each may cost only itself), so that every
 * offset of the segment has a bit flipped in one run; the file is cut at every `cutStride`th
 * offset; the ack file is damaged at every offset.
 */
export function fuzzLarge(
  s: Spooled,
  spread: number,
  cutStride: number,
  onProblem: (problem: string) => void,
  read: (files: Record<string, Buffer>) => { texts: string[]; torn: number },
): { runs: number; flipped: number; cuts: number } {
  let runs = 0
  let flipped = 0
  let cuts = 0
  const gap = Math.ceil(s.segment.length / spread)
  const damaged = Buffer.from(s.segment)
  for (let base = 0; base < gap; base++) {
    const lost = new Set<number>()
    const offsets: number[] = []
    for (let at = base; at < s.segment.length; at += gap) offsets.push(at)
    for (const at of offsets) {
      damaged[at] ^= 1 << (at % 8)
      for (const o of recordAt(s, at)) lost.add(o)
    }
    for (const p of check(`segment bits flipped at ${offsets.join(',')}`, s, read({ '000001.log': damaged, '000001.ack': s.ack }), lost))
      onProblem(p)
    for (const at of offsets) damaged[at] ^= 1 << (at % 8)
    flipped += offsets.length
    runs += 1
  }
  for (let at = 0; at < s.segment.length; at += cutStride) {
    const after = new Set(s.texts.flatMap((_, o) => (s.ends[o] > at ? [o] : [])))
    const cut = read({ '000001.log': s.segment.subarray(0, at), '000001.ack': s.ack })
    for (const p of check(`segment cut at ${at}`, s, cut, after, false, at > 8 && !s.ends.includes(at))) onProblem(p)
    cuts += 1
    runs += 1
  }
  for (let at = 0; at < s.ack.length; at++) {
    const flippedAck = Buffer.from(s.ack)
    flippedAck[at] ^= 1 << (at % 8)
    for (const p of check(`ack bit flipped at ${at}`, s, read({ '000001.log': s.segment, '000001.ack': flippedAck }), new Set(), true))
      onProblem(p)
    for (const p of check(`ack cut at ${at}`, s, read({ '000001.log': s.segment, '000001.ack': s.ack.subarray(0, at) }), new Set(), true))
      onProblem(p)
    runs += 2
  }
  return { runs, flipped, cuts }
}
