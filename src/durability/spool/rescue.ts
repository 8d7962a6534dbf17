import { readFile, type SpoolFs } from './files'
import { encodeFrame, encoded, MAX_SEGMENT_FILE_BYTES, readFrames, SEGMENT_MAGIC } from './frame'
import { readAcks } from './segment-files'
import type { Segment } from './segment'

/**
 * The records of an own segment that a failed sync left in doubt: those written since its last
 * good sync (all of them while its name was never synced in its directory), without an outcome.
 * After a failed `fsync` the kernel may have dropped their pages from the disk's queue while
 * keeping them readable here: they are read back (each checked against its checksum), handed to
 * `write` in order, with their ordinal and whether they are kept (see `kept.ts`), and their count
 * returned. Throws when the file cannot be read.
 */
export function copyUnsynced(
  fs: SpoolFs,
  segment: Segment,
  scratch: Buffer,
  write: (buffer: Buffer, length: number, ordinal: number, isKept: boolean) => void,
): number {
  const named = segment.named === true
  const from = named ? Math.max(segment.synced ?? 0, SEGMENT_MAGIC.length) : SEGMENT_MAGIC.length
  const first = named && (segment.synced ?? 0) >= SEGMENT_MAGIC.length ? (segment.syncedTotal ?? 0) : 0
  if (from >= segment.size) return 0
  const data = readFile(fs, segment.path, from, segment.size - from, MAX_SEGMENT_FILE_BYTES)
  const acked = readAcks(fs, segment.ackPath, MAX_SEGMENT_FILE_BYTES)
  const run = readFrames(data, first, Infinity, (o) => !acked.has(o), true)
  for (const frame of run.frames) {
    const length = encodeFrame(scratch, undefined, frame.text, frame.isAlias)
    write(encoded, length, frame.ordinal, segment.kept?.ordinals.has(frame.ordinal) === true)
  }
  return run.frames.length
}
