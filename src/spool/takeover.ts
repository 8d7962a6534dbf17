import type { Backlog } from './backlog'
import { readFile, type SpoolFs } from './files'
import { countFrames, SEGMENT_MAGIC } from './frame'
import { claim, findOrphans, removeEmptyParts, segmentsOf } from './parts'
import type { SegmentStore } from './segments'

/**
 * Takes over the parts of `root` whose clients are gone (see `parts.ts`) into `part`, and queues
 * their records without an outcome to be read back; returns how many, and how many were torn.
 */
export function takeOverParts(
  fs: SpoolFs,
  root: string,
  part: string,
  store: SegmentStore,
  backlog: Backlog,
): { count: number; torn: number } {
  let count = 0
  let torn = 0
  for (const name of findOrphans(fs, root)) {
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
    data = readFile(fs, path)
  } catch {
    return { count: 0, torn: 0 }
  }
  try {
    acks = readFile(fs, path.replace(/\.log$/, '.ack'))
  } catch {
    // No ack file: none of its records had an outcome.
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
