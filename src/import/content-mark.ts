import { createHash } from 'node:crypto'

/** Bytes at the start of the input that a checkpoint's `head` hashes. */
export const HEAD_BYTES = 64 * 1024
/** Bytes before the end of the checkpoint's line that its `tail` hashes. */
export const TAIL_BYTES = 64 * 1024
/**
 * Most bytes of input kept to identify lines that may still become the checkpoint's: normally
 * what lies between the watermark and the reading (the messages in flight, a few MB); past it
 * the oldest go, and a checkpoint is written again once the watermark reaches what is kept.
 */
export const MAX_KEPT_BYTES = 64 * 1024 * 1024

/** A SHA-256 of some bytes of the input, and how many. */
export interface Digest {
  readonly bytes: number
  readonly sha256: string
}

/**
 * What identifies the content of an input up to the end of one line: where the line ends, a hash
 * of the input's first bytes, and a hash of the bytes just before the end of the line. Offsets count
 * the bytes the lines are read from: decompressed, after a leading byte order mark.
 */
export interface ContentMark {
  /** Bytes of the input before the end of the line (its newline excluded). */
  readonly offset: number
  /** The first {@link HEAD_BYTES} bytes of the input, or up to `offset` when that is less. */
  readonly head: Digest
  /** The {@link TAIL_BYTES} bytes before `offset`, or fewer (a shorter input, or within a line longer than that). */
  readonly tail: Digest
}

/** The input read is not the one a checkpoint was written for; `reason` says how it differs. */
export class CheckpointMismatchError extends Error {
  override name = 'CheckpointMismatchError'
  readonly reason: string
  constructor(reason: string) {
    super(`the input differs from the one the checkpoint was written for: ${reason}`)
    this.reason = reason
  }
}

/** How far the import has got: the lowest line a checkpoint may still be asked for. */
export interface Floor {
  readonly value: number
  /** The watermark stopped for good (a failed line): no later line will be asked for. */
  readonly isBlocked: boolean
}

interface Segment {
  /** Offset of its first byte. */
  readonly start: number
  readonly bytes: Uint8Array
  /** Lines whose newline came before it, and up to its end. */
  readonly linesBefore: number
  readonly linesAfter: number
}

const NEWLINE = 0x0a
const count = (n: number): string => n.toLocaleString('en-US')

/**
 * Follows the bytes that the line reader reads (a chunk at a time) and can tell, for a line not
 * long done, what identifies the input up to it ({@link ContentMark}): the checkpoint records it, and
 * `--resume` checks it. It keeps a copy of the first {@link HEAD_BYTES} bytes, and of what lies from
 * {@link TAIL_BYTES} before the end of the `floor` line to the reading (the middle of a very long line
 * aside). Given the mark a checkpoint recorded, it checks it once the reading passes that line
 * (before any later line is handed over) and throws {@link CheckpointMismatchError} when it differs.
 */
export class ContentTrail {
  readonly #floor: Floor
  readonly #expected: { readonly line: number; readonly mark: ContentMark } | undefined
  #isChecked = false
  #isMismatch = false
  #head: Uint8Array = new Uint8Array(0)
  readonly #segments: Segment[] = []
  #kept = 0
  #total = 0
  #lines = 0
  /** The last line, when the input ended without a newline after it: it ends at the end. */
  #openLastLine: number | undefined
  #cachedLine = -1
  #cachedOffset = 0

  /** `floor`: the watermark (the lowest line that may still be asked for); `expected`: the checkpoint's line and mark, to check. */
  constructor(floor: Floor, expected?: { readonly line: number; readonly mark: ContentMark }) {
    this.#floor = floor
    this.#expected = expected
  }

  /** Bytes of the input read so far. */
  get total(): number {
    return this.#total
  }

  /** Bytes of the input kept (besides the head) to identify lines from the floor on. */
  get keptBytes(): number {
    return this.#kept
  }

  /**
   * A chunk the reader took, and the count of newlines before it and up to its end. It may be a
   * buffer that the source reuses: what is kept is copied.
   * @throws CheckpointMismatchError when the reading passes the expected line and the input differs.
   */
  take(chunk: Uint8Array, linesBefore: number, linesAfter: number): void {
    const start = this.#total
    this.#total += chunk.length
    this.#lines = linesAfter
    if (this.#head.length < HEAD_BYTES) this.#head = concat(this.#head, chunk.subarray(0, HEAD_BYTES - this.#head.length))
    const floor = this.#floor
    // Once the watermark has stopped for good, no line after it will be asked for.
    const isWanted = !(floor.isBlocked && linesBefore >= floor.value)
    if (isWanted && chunk.length > 0) {
      this.#segments.push({ start, bytes: new Uint8Array(chunk), linesBefore, linesAfter })
      this.#kept += chunk.length
    }
    this.#trim()
    if (this.#expected !== undefined && !this.#isChecked && linesAfter >= this.#expected.line) this.#check()
  }

  /**
   * The input ended after `lines` lines; `isLastLineOpen`: the last had no newline.
   * @throws CheckpointMismatchError when the input ended before the expected line, or differs.
   */
  end(lines: number, isLastLineOpen: boolean): void {
    if (isLastLineOpen) this.#openLastLine = lines
    this.#lines = lines
    if (this.#expected === undefined || this.#isChecked) return
    if (lines < this.#expected.line) {
      this.#isChecked = true
      this.#isMismatch = true
      throw new CheckpointMismatchError(
        `it has ${count(lines)} line${lines === 1 ? '' : 's'}, and the checkpoint is after line ${count(this.#expected.line)}`,
      )
    }
    this.#check()
  }

  /**
   * What identifies the input up to the end of `line`, or undefined when that is not known (the
   * line is not read yet, or what it needs is no longer kept).
   */
  mark(line: number): ContentMark | undefined {
    if (this.#isMismatch) return undefined
    const offset = this.#offsetOf(line)
    if (offset === undefined) return undefined
    const headBytes = Math.min(HEAD_BYTES, offset)
    if (this.#head.length < headBytes) return undefined
    const tail = this.#bytesBefore(offset, Math.min(TAIL_BYTES, offset))
    return {
      offset,
      head: { bytes: headBytes, sha256: sha256(this.#head.subarray(0, headBytes)) },
      tail: { bytes: tail.length, sha256: sha256(tail) },
    }
  }

  #check(): void {
    this.#isChecked = true
    // Until it passes, no mark is given: a checkpoint of the other input must never be written.
    this.#isMismatch = true
    const { line, mark: expected } = this.#expected!
    const offset = this.#offsetOf(line)
    if (offset !== expected.offset) {
      throw new CheckpointMismatchError(
        `its line ${count(line)} ends at byte ${offset === undefined ? '?' : count(offset)}, not at byte ${count(expected.offset)} as it did`,
      )
    }
    const head = this.#head.subarray(0, expected.head.bytes)
    if (head.length !== expected.head.bytes || sha256(head) !== expected.head.sha256) {
      throw new CheckpointMismatchError(`its first ${count(expected.head.bytes)} bytes differ`)
    }
    const tail = this.#bytesBefore(offset, expected.tail.bytes)
    if (tail.length !== expected.tail.bytes || sha256(tail) !== expected.tail.sha256) {
      throw new CheckpointMismatchError(`the ${count(expected.tail.bytes)} bytes before the end of line ${count(line)} differ`)
    }
    this.#isMismatch = false
  }

  // Where `line` ends (its newline excluded), from the newlines of the chunk it ends in.
  #offsetOf(line: number): number | undefined {
    if (line === 0) return 0
    if (line > this.#lines) return undefined
    if (line === this.#openLastLine) return this.#total
    if (line === this.#cachedLine) return this.#cachedOffset
    const segment = this.#segmentOf(line)
    if (segment === undefined) return undefined
    let index = -1
    for (let n = segment.linesBefore; n < line; n++) index = segment.bytes.indexOf(NEWLINE, index + 1)
    this.#cachedLine = line
    this.#cachedOffset = segment.start + index
    return this.#cachedOffset
  }

  // The segment in which `line`'s newline is (segments are in order: a binary search).
  #segmentOf(line: number): Segment | undefined {
    const segments = this.#segments
    let low = 0
    let high = segments.length - 1
    while (low <= high) {
      const mid = (low + high) >>> 1
      const s = segments[mid]
      if (s.linesAfter < line) low = mid + 1
      else if (s.linesBefore >= line) high = mid - 1
      else return s
    }
    return undefined
  }

  // The `length` bytes before `offset`, as far as they are kept without a gap.
  #bytesBefore(offset: number, length: number): Uint8Array {
    const parts: Uint8Array[] = []
    let end = offset
    for (let i = this.#segments.length - 1; i >= 0 && end > offset - length; i--) {
      const s = this.#segments[i]
      if (s.start >= end) continue
      if (s.start + s.bytes.length < end) break // a gap
      const from = Math.max(s.start, offset - length)
      parts.unshift(s.bytes.subarray(from - s.start, end - s.start))
      end = from
    }
    return parts.reduce(concat, new Uint8Array(0))
  }

  // Keeps what a mark of a line from the floor on may need: the TAIL_BYTES before the floor line's
  // end and everything after, but the middle of a line longer than TAIL_BYTES (no line ends there).
  // Segments are dropped from the front, and from inside the unfinished last line: each once.
  #trim(): void {
    const segments = this.#segments
    const floor = this.#floor.value
    // From the start of the chunk where the floor line ends (a little more than needed: no scan).
    const floorStart = floor === 0 ? 0 : floor <= this.#lines ? this.#segmentOf(floor)?.start : undefined
    const keepFrom = (floorStart ?? this.#total) - TAIL_BYTES
    let front = 0
    while (front < segments.length - 1 && segments[front].start + segments[front].bytes.length <= keepFrom) {
      this.#kept -= segments[front].bytes.length
      front += 1
    }
    while (this.#kept > MAX_KEPT_BYTES && front < segments.length - 1) {
      this.#kept -= segments[front].bytes.length
      front += 1
    }
    if (front > 0) {
      segments.splice(0, front)
      this.#cachedLine = -1
    }
    // Inside the line not finished yet: what is more than TAIL_BYTES behind the reading.
    const lines = this.#lines
    const unfinishedBefore = this.#total - TAIL_BYTES
    let last = segments.length - 1
    while (last >= 0 && segments[last].linesBefore === lines && segments[last].start + segments[last].bytes.length > unfinishedBefore)
      last--
    let first = last
    while (first >= 0 && segments[first].linesBefore === lines) first--
    if (first < last) {
      for (let i = first + 1; i <= last; i++) this.#kept -= segments[i].bytes.length
      segments.splice(first + 1, last - first)
      this.#cachedLine = -1
    }
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a, 0)
  joined.set(b, a.length)
  return joined
}
