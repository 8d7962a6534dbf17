import { readFile, type SpoolFs } from './files'
import { encodeFrame, encoded, MAX_SEGMENT_FILE_BYTES, readFrames, SEGMENT_MAGIC } from './frame'
import { readAcks } from './segment-files'
import { markKept } from './kept'
import type { Segment } from './segment'
import type { SyncFailure } from './sync'

/** What a rescue needs of the segment store. */
export interface RescueStore {
  readonly fs: SpoolFs
  readonly scratch: Buffer
  /** Original reference → the reference of its copy. */
  readonly copies: Map<number, number>
  get(id: number): Segment | undefined
  /** Seals `segment` if it is the active one. */
  seal(segment: Segment): void
  /** Appends an encoded record to the active segment; its reference. */
  write(buffer: Buffer, length: number): number
}

/**
 * The records a failed sync left in doubt are written again, to a new segment (the one that
 * failed is sealed, and marked unsafe: nothing more of it is taken as durable); an outcome of an
 * original is that of its copy too (`copies`; a kept record's copy is kept). Returns how many were
 * written, or the error that kept them from being written.
 */
export function rescue(failures: readonly SyncFailure[], perSegment: number, store: RescueStore): number | Error {
  let copied = 0
  try {
    for (const segment of new Set(failures.flatMap((f) => f.segments))) {
      segment.unsafe = true
      if (!segment.own || store.get(segment.id) === undefined) continue
      store.seal(segment)
      if (store.get(segment.id) === undefined) continue
      copied += copyUnsynced(store.fs, segment, store.scratch, (buffer, length, ordinal, isKept) => {
        const ref = store.write(buffer, length)
        const copy = store.get(Math.floor(ref / perSegment)) as Segment
        // Never read back here (its original is, or is in memory); sent by the next client after a power loss.
        if (isKept) markKept(copy, ref % perSegment, length, true)
        else {
          const skip = (copy.acked as Set<number> | undefined) ?? new Set<number>()
          copy.acked = skip.add(ref % perSegment)
          store.copies.set(segment.id * perSegment + ordinal, ref)
        }
      })
    }
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
  return copied
}

/** The records of `refs` (of `bytes` each) and their copies (and the copies of those), each copy once and forgotten. */
export function withCopies(copies: Map<number, number>, refs: readonly number[], bytes: readonly number[]): [number[], number[]] {
  const all = [...refs]
  const sizes = [...bytes]
  for (let k = 0; k < all.length; k++) {
    const copy = copies.get(all[k])
    if (copy === undefined) continue
    copies.delete(all[k])
    all.push(copy)
    sizes.push(sizes[k])
  }
  return [all, sizes]
}

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
