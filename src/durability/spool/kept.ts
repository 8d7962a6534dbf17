import { readFile, type SpoolFs } from './files'
import { encodeFrame, encoded, MAX_SEGMENT_FILE_BYTES, readFrames, SEGMENT_MAGIC } from './frame'
import type { Segment } from './segment'

/**
 * Records kept for a client set up right: their message had an outcome that does not end them (a
 * refusal of the client's setup: 401, 403, a redirect), so they stay on disk for the next client
 * on the directory, and this one never reads them again. One of them must not pin its whole
 * segment: once every other record of it has its outcome, they are copied forward into the active
 * segment and the segment is deleted (see `SegmentStore`).
 * @module
 */

/** Marks the record `ordinal` of `segment` (`bytes` on disk) kept; a copy is also never read here. */
export function markKept(segment: Segment, ordinal: number, bytes: number, isCopy: boolean): void {
  segment.kept ??= { count: 0, bytes: 0, ordinals: new Set() }
  segment.kept.count += 1
  segment.kept.bytes += bytes
  segment.kept.ordinals.add(ordinal)
  if (!isCopy) return
  const skip = (segment.acked as Set<number> | undefined) ?? new Set<number>()
  skip.add(ordinal)
  segment.acked = skip
}

/**
 * Hands each kept record of `segment` to `write` (encoded into `scratch`, or a bigger buffer), in
 * order; false when the file cannot be read (or a write throws: the disk refuses), and the
 * segment must then stay as it is.
 */
export function copyKept(fs: SpoolFs, segment: Segment, scratch: Buffer, write: (buffer: Buffer, length: number) => void): boolean {
  const kept = segment.kept
  if (kept === undefined) return true
  try {
    const data = readFile(fs, segment.path, 0, Infinity, MAX_SEGMENT_FILE_BYTES)
    const run = readFrames(data.subarray(SEGMENT_MAGIC.length), 0, kept.count, (o) => kept.ordinals.has(o), true)
    for (const frame of run.frames) {
      const length = encodeFrame(scratch, undefined, frame.text, frame.isAlias)
      write(encoded, length)
    }
    return true
  } catch {
    return false
  }
}
