import type { Backlog } from './backlog'
import { readFile, type SpoolFs } from './files'
import { countFrames, MAX_SEGMENT_FILE_BYTES, SEGMENT_MAGIC } from './frame'
import { claim, findOrphans, removeEmptyParts, segmentsOf } from './parts'
import { ackPathOf, type SegmentStore } from './segments'

/**
 * Takes over the parts of `root` whose clients are gone (see `parts.ts`) into `part`, and queues
 * their records without an outcome to be read back; returns how many, and how many were torn.
 */
export function takeOverParts(
  fs: SpoolFs,
  root: string,
  part: string,
  tenant: string,
  store: SegmentStore,
  backlog: Backlog,
): { count: number; torn: number } {
  let count = 0
  let torn = 0
  for (const name of findOrphans(fs, root, tenant)) {
    const taken = claim(fs, root, name, part)
    if (taken === undefined) continue
    for (const path of segmentsOf(fs, taken)) {
      const found = adopt(fs, path, store, backlog)
      count += found.count
      torn += found.torn
    }
    removeEmptyParts(fs, part)
  }
  backlog.torn += torn
  return { count, torn }
}

// Counts the records of a segment taken over that still want an outcome, skipping a torn tail.
function adopt(fs: SpoolFs, path: string, store: SegmentStore, backlog: Backlog): { count: number; torn: number } {
  let data: Buffer
  let acks: Buffer = Buffer.alloc(0)
  try {
    // A segment is at most its size plus one record: a larger file (a sparse one planted there)
    // is not the spool's, and neither is a FIFO, a device or another user's file.
    data = readFile(fs, path, 0, Infinity, MAX_SEGMENT_FILE_BYTES)
  } catch {
    return { count: 0, torn: 0 }
  }
  try {
    // Four bytes a record, and a record takes at least ten: an ack file is smaller than its segment.
    acks = readFile(fs, ackPathOf(path), 0, Infinity, data.length)
  } catch {
    // No ack file (none of its records had an outcome), or one the spool did not write (a link, a
    // FIFO, another user's, too large): not read. Its records are all sent; at worst a duplicate.
  }
  // A file that does not begin as a segment is not the spool's: it is left alone.
  if (data.length < SEGMENT_MAGIC.length || !data.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)) return { count: 0, torn: 0 }
  const acked = new Set<number>()
  for (let at = 0; at + 4 <= acks.length; at += 4) acked.add(acks.readUInt32LE(at))
  const { count, bad } = countFrames(data.subarray(SEGMENT_MAGIC.length), (o) => !acked.has(o))
  const segment = store.adopt(path, data.length, count, acked)
  backlog.addTakenOver(segment)
  if (count === 0) store.giveUp(segment, 0)
  return { count, torn: bad ? 1 : 0 }
}
