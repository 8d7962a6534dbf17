import * as zlib from 'node:zlib'

/**
 * The bytes of the spool on disk. A segment file starts with {@link SEGMENT_MAGIC}; then records,
 * each `u32 length | u32 crc32 | payload` (little-endian), the payload one kind byte (`a` for an
 * alias, `b` for a batchable message) and the message's wire JSON in UTF-8. An ack file is a run of
 * `u32` ordinals: the records of its segment that have an outcome.
 * @module
 */

/** The first 8 bytes of every segment: a file that does not start so is not read. */
export const SEGMENT_MAGIC = Buffer.from('ERSPOOL1', 'latin1')
/** Length and checksum in front of every payload. */
export const FRAME_HEADER_BYTES = 8
const KIND_ALIAS = 0x61
const KIND_BATCH = 0x62
/** A length past this is not a record but garbage (a torn or foreign write): messages are ≤ 32 KB. */
export const MAX_PAYLOAD_BYTES = 64 * 1024
/** A new segment begins once one reaches this size. */
export const SEGMENT_BYTES = 4 * 1024 * 1024
/** The largest file a segment can be: a longer one (a sparse file planted there) is not read. */
export const MAX_SEGMENT_FILE_BYTES = SEGMENT_BYTES + FRAME_HEADER_BYTES + MAX_PAYLOAD_BYTES

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32
let table: Int32Array | undefined

/** CRC-32 (the zlib polynomial) of `data`: `zlib.crc32` where the runtime has it, else a table. */
export function crc32(data: Uint8Array): number {
  if (typeof nativeCrc32 === 'function') return nativeCrc32(data)
  table ??= makeTable()
  let crc = -1
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}

function makeTable(): Int32Array {
  const t = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  return t
}

/** The buffer the last {@link encodeFrame} wrote into: its scratch, or a bigger one. */
export let encoded: Buffer = Buffer.alloc(0)

/**
 * Writes the record of a message (`head + json.slice(1)` when it has a head, see `Serialized`)
 * into `scratch`, or a bigger buffer when it does not fit (then in {@link encoded}), and returns
 * the record's length. The message text is not joined first: each part is encoded where it goes.
 */
export function encodeFrame(scratch: Buffer, head: string | undefined, json: string, isAlias: boolean): number {
  const chars = (head?.length ?? 0) + json.length
  // UTF-8 takes at most 3 bytes for a UTF-16 code unit.
  const buffer = FRAME_HEADER_BYTES + 1 + chars * 3 > scratch.length ? Buffer.allocUnsafe(FRAME_HEADER_BYTES + 1 + chars * 3) : scratch
  encoded = buffer
  buffer[FRAME_HEADER_BYTES] = isAlias ? KIND_ALIAS : KIND_BATCH
  let at = FRAME_HEADER_BYTES + 1
  if (head === undefined) at += buffer.write(json, at, 'utf8')
  else {
    at += buffer.write(head, at, 'utf8')
    at += buffer.write(json.slice(1), at, 'utf8')
  }
  const payloadBytes = at - FRAME_HEADER_BYTES
  buffer.writeUInt32LE(payloadBytes, 0)
  buffer.writeUInt32LE(crc32(buffer.subarray(FRAME_HEADER_BYTES, at)), 4)
  return at
}

/** One record read back. */
export interface Frame {
  readonly ordinal: number
  readonly isAlias: boolean
  readonly text: string
  /** The record's bytes on disk, header included. */
  readonly bytes: number
}

/** What {@link readFrames} found. */
export interface FrameRun {
  readonly frames: Frame[]
  /** Damaged records (that `keep` accepts): skipped, never sent. */
  readonly skipped: number
  /** Where the next record starts (relative to `data`). */
  readonly end: number
  /** The next record's ordinal. */
  readonly ordinal: number
  /** The file ends in damage (a record cut off by a crash, or garbage): nothing whole follows. */
  readonly bad: boolean
}

/**
 * Whether `data` begins as a segment: its magic, or the magic with one bit flipped (a damaged
 * magic must not cost the records of the file; a file that is not the spool's is further away).
 */
export function isSegmentStart(data: Buffer): boolean {
  if (data.length < SEGMENT_MAGIC.length) return false
  let bits = 0
  for (let i = 0; i < SEGMENT_MAGIC.length; i++) {
    let x = data[i] ^ SEGMENT_MAGIC[i]
    for (; x !== 0; x &= x - 1) bits += 1
  }
  return bits <= 1
}

// What `step` found at a position: a whole record; damage, then a whole record; damage to the end
// of the file (a torn tail); too few bytes to tell (more are coming); the end of the data.
const WHOLE = 0
const DAMAGED = 1
const TORN = 2
const MORE = 3
const END = 4
/** Where what `step` found ends: after the whole record, or where the next whole record starts. */
let stepEnd = 0

function isWholeAt(data: Buffer, at: number, stop: number): boolean {
  const kind = data[at + FRAME_HEADER_BYTES]
  return (kind === KIND_ALIAS || kind === KIND_BATCH) && crc32(data.subarray(at + FRAME_HEADER_BYTES, stop)) === data.readUInt32LE(at + 4)
}

/**
 * What is at `at` of `data` (`isEnd`: nothing follows it). A record whose length, checksum or kind
 * is wrong is damaged: the reading goes on at the next position where a whole record starts (its
 * length fits and its checksum matches: wire JSON has no zero byte, so a record's text never looks
 * like a length), and the damage counts as one record. A damaged record costs itself, never its
 * neighbours.
 */
function step(data: Buffer, at: number, isEnd: boolean): number {
  if (at >= data.length) return END
  if (data.length - at >= FRAME_HEADER_BYTES) {
    const length = data.readUInt32LE(at)
    if (length >= 1 && length <= MAX_PAYLOAD_BYTES) {
      const stop = at + FRAME_HEADER_BYTES + length
      if (stop > data.length && !isEnd) return MORE
      if (stop <= data.length && isWholeAt(data, at, stop)) {
        stepEnd = stop
        return WHOLE
      }
    }
  } else if (!isEnd) return MORE
  for (let p = at + 1; p + FRAME_HEADER_BYTES <= data.length; p++) {
    const length = data.readUInt32LE(p)
    if (length < 1 || length > MAX_PAYLOAD_BYTES) continue
    const stop = p + FRAME_HEADER_BYTES + length
    if (stop > data.length) {
      if (!isEnd) return MORE
      continue
    }
    if (isWholeAt(data, p, stop)) {
      stepEnd = p
      return DAMAGED
    }
  }
  return isEnd ? TORN : MORE
}

/**
 * Reads records from `data`, numbering them from `ordinal`, up to `maxCount` of them whose
 * ordinal `keep` accepts (the others are stepped over: records that already had their outcome);
 * a damaged record counts towards `maxCount` as skipped.
 * `isEnd` says that no byte follows `data`: damage that runs to its end is a torn tail; otherwise
 * the reading stops before what it cannot tell yet, to go on once more bytes are read.
 */
export function readFrames(data: Buffer, ordinal: number, maxCount: number, keep: (ordinal: number) => boolean, isEnd: boolean): FrameRun {
  const frames: Frame[] = []
  let skipped = 0
  let at = 0
  while (frames.length + skipped < maxCount) {
    const found = step(data, at, isEnd)
    if (found === END || found === MORE || found === TORN) return { frames, skipped, end: at, ordinal, bad: found === TORN }
    if (found === DAMAGED) {
      if (keep(ordinal)) skipped += 1
    } else if (keep(ordinal)) {
      const kind = data[at + FRAME_HEADER_BYTES]
      frames.push({
        ordinal,
        isAlias: kind === KIND_ALIAS,
        text: data.toString('utf8', at + FRAME_HEADER_BYTES + 1, stepEnd),
        bytes: stepEnd - at,
      })
    }
    ordinal += 1
    at = stepEnd
  }
  return { frames, skipped, end: at, ordinal, bad: false }
}

/**
 * Counts the records of `data` (a segment after its magic) whose ordinal `keep` accepts, as
 * {@link readFrames} numbers them (a damaged record counts as one), up to damage that runs to the
 * end (`bad`) or, unless `isEnd`, a record not all there yet; `frames`: all the records counted,
 * `end`: where they end.
 */
export function countFrames(
  data: Buffer,
  keep: (ordinal: number) => boolean,
  isEnd = true,
): { count: number; bad: boolean; frames: number; end: number } {
  let count = 0
  let at = 0
  let ordinal = 0
  for (;;) {
    const found = step(data, at, isEnd)
    if (found === END || found === MORE || found === TORN) return { count, bad: found === TORN, frames: ordinal, end: at }
    if (keep(ordinal)) count += 1
    ordinal += 1
    at = stepEnd
  }
}
