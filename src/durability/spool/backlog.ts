import { FRAME_HEADER_BYTES, readFrames, SEGMENT_MAGIC } from './frame'
import { readFile, type SpoolFs } from './files'
import { ordinalOf, RECORDS_PER_SEGMENT } from './segment'
import type { Segment, SegmentStore } from './segments'

/** A record read back from the disk, to be sent. */
export interface SpoolRecord {
  /** Its reference, to ack it with. */
  readonly ref: number
  /** The message's wire JSON. */
  readonly text: string
  /** Its length in UTF-8 bytes. */
  readonly bytes: number
  readonly isAlias: boolean
  /** Written by an earlier process (a replay), not by this one. */
  readonly replayed: boolean
}

interface Cursor {
  segment: Segment
  offset: number
  ordinal: number
  /** Records still to read through this cursor. */
  remaining: number
}

const CHUNK_BYTES = 1024 * 1024

/**
 * The records that wait on the disk only, in the order they are read back: those of parts taken
 * over (a replay), then this process's own that did not fit in memory. Each run of them is a
 * cursor into a segment; the disk is read a chunk at a time, so a backlog of any size costs memory
 * only for what is handed out.
 */
export class Backlog {
  readonly #fs: SpoolFs
  readonly #store: SegmentStore
  readonly #cursors: Cursor[] = []
  #own: Cursor | undefined
  /** Records waiting. */
  count = 0
  /** Records found torn (cut off by a crash, or garbage): skipped, never sent. */
  torn = 0

  constructor(fs: SpoolFs, store: SegmentStore) {
    this.#fs = fs
    this.#store = store
  }

  /** A segment taken over: its records without an outcome wait to be read. */
  addTakenOver(segment: Segment): void {
    if (segment.total === 0) return
    this.#cursors.push({ segment, offset: SEGMENT_MAGIC.length, ordinal: 0, remaining: segment.total })
    this.count += segment.total
  }

  /** Records of a segment taken over that its owner appended after it was read: `count` from `offset` (ordinal `ordinal`). */
  addTail(segment: Segment, offset: number, ordinal: number, count: number): void {
    if (count === 0) return
    this.#cursors.push({ segment, offset, ordinal, remaining: count })
    this.count += count
  }

  /** This process just appended a record it does not keep in memory: `ref` in `segment`, which began at `offset`. */
  addOwn(segment: Segment, offset: number, ref: number): void {
    this.count += 1
    if (this.#own !== undefined) {
      this.#own.remaining += 1
      return
    }
    this.#own = { segment, offset, ordinal: ordinalOf(ref), remaining: 1 }
    this.#cursors.push(this.#own)
  }

  /** Whether own records wait on the disk: later ones must wait there too, to keep their order. */
  get hasOwn(): boolean {
    return this.#own !== undefined
  }

  /** Reads up to `maxCount` records (and about `maxBytes` of text), in order. */
  read(maxCount: number, maxBytes: number): SpoolRecord[] {
    const out: SpoolRecord[] = []
    let bytes = 0
    while (out.length < maxCount && bytes < maxBytes && this.#cursors.length > 0) {
      const cursor = this.#cursors[0]
      const before = out.length
      this.#readFrom(cursor, maxCount - out.length, maxBytes - bytes, out)
      for (let i = before; i < out.length; i++) bytes += out[i].bytes
      if (cursor.remaining === 0) {
        this.#cursors.shift()
        if (cursor === this.#own) this.#own = undefined
      } else if (out.length === before) break
    }
    this.count -= out.length
    return out
  }

  #readFrom(cursor: Cursor, maxCount: number, maxBytes: number, out: SpoolRecord[]): void {
    const segment = cursor.segment
    if (segment.own && cursor.offset >= segment.size && segment.sealed) {
      // This own segment is read to its end: the run goes on in the next one.
      const next = this.#store.ownAfter(segment.id)
      if (next === undefined) return this.#lose(cursor)
      Object.assign(cursor, { segment: next, offset: SEGMENT_MAGIC.length, ordinal: 0 })
      return this.#readFrom(cursor, maxCount, maxBytes, out)
    }
    let data: Buffer
    try {
      data = readFile(this.#fs, segment.path, cursor.offset, Math.max(CHUNK_BYTES, Math.min(maxBytes * 2, 16 * CHUNK_BYTES)))
      if (data.length >= FRAME_HEADER_BYTES && data.length < FRAME_HEADER_BYTES + data.readUInt32LE(0)) {
        data = readFile(this.#fs, segment.path, cursor.offset, FRAME_HEADER_BYTES + data.readUInt32LE(0))
      }
    } catch {
      return this.#lose(cursor)
    }
    let isEnd = cursor.offset + data.length >= segment.size && segment.sealed
    const acked = segment.acked
    const keep = acked === undefined ? () => true : (o: number) => !acked.has(o)
    let run = readFrames(data, cursor.ordinal, Math.min(maxCount, cursor.remaining), keep, isEnd)
    if (run.end === 0 && !run.bad && cursor.offset + data.length < segment.size) {
      // Damage at the end of the chunk: where the next whole record starts is told by the rest of the file.
      try {
        data = readFile(this.#fs, segment.path, cursor.offset, segment.size - cursor.offset)
      } catch {
        return this.#lose(cursor)
      }
      isEnd = segment.sealed
      run = readFrames(data, cursor.ordinal, Math.min(maxCount, cursor.remaining), keep, isEnd)
    }
    const base = segment.id * RECORDS_PER_SEGMENT
    for (const frame of run.frames)
      out.push({
        ref: base + frame.ordinal,
        text: frame.text,
        bytes: frame.bytes - FRAME_HEADER_BYTES - 1,
        isAlias: frame.isAlias,
        replayed: !segment.own,
      })
    cursor.offset += run.end
    cursor.ordinal = run.ordinal
    cursor.remaining -= run.frames.length + run.skipped
    if (run.skipped > 0) {
      this.torn += run.skipped
      this.count -= run.skipped
      this.#store.giveUp(segment, run.skipped)
    }
    if (run.bad) {
      this.torn += 1
      this.#lose(cursor)
    }
  }

  // What this cursor still counted cannot be read (a torn segment, a file gone): it is given up.
  #lose(cursor: Cursor): void {
    this.count -= cursor.remaining
    this.#store.giveUp(cursor.segment, cursor.remaining)
    cursor.remaining = 0
  }
}
