import type { Backlog } from './backlog'
import { readFile, type SpoolFs } from './files'
import { countFrames, isSegmentStart, MAX_SEGMENT_FILE_BYTES, SEGMENT_MAGIC } from './frame'
import { claim, claimAsPart, findOrphans, removeEmptyParts, segmentsOf, verifyRoot } from './parts'
import { ackPathOf, readAcks } from './segment-files'
import type { Segment, SegmentStore } from './segments'

/** What a take-over found: records to send, and files found torn. */
export interface Found {
  count: number
  torn: number
}

/**
 * Takes over the parts of `root` whose clients are gone (see `parts.ts`) into `part`, and queues
 * their records without an outcome to be read back; returns how many, and how many were torn.
 */
export function takeOverParts(fs: SpoolFs, root: string, part: string, tenant: string, store: SegmentStore, backlog: Backlog): Found {
  const found: Found = { count: 0, torn: 0 }
  for (const name of findOrphans(fs, root, tenant)) {
    const taken = claim(fs, root, name, part)
    if (taken === undefined) continue
    // The rename is synced with the next sync, in both directories.
    store.changed(root)
    store.changed(part)
    adoptAll(fs, taken, store, backlog, found)
    removeEmptyParts(fs, part)
  }
  backlog.torn += found.torn
  return found
}

/**
 * Without a part of its own (a full disk: none can be made), a client takes a gone client's part
 * over as its own part, by a rename alone, and sends its records; undefined when there is none (or
 * the directory may not be trusted).
 */
export function takeOverAsPart(
  fs: SpoolFs,
  root: string,
  tenant: string,
  store: SegmentStore,
  backlog: Backlog,
): (Found & { part: string }) | undefined {
  try {
    verifyRoot(fs, root)
  } catch {
    return undefined
  }
  for (const name of findOrphans(fs, root, tenant)) {
    const part = claimAsPart(fs, root, name, tenant)
    if (part === undefined) continue
    store.changed(root)
    store.changed(part)
    const found: Found = { count: 0, torn: 0 }
    adoptAll(fs, part, store, backlog, found)
    backlog.torn += found.torn
    return { ...found, part }
  }
  return undefined
}

function adoptAll(fs: SpoolFs, dir: string, store: SegmentStore, backlog: Backlog, found: Found): void {
  for (const path of segmentsOf(fs, dir)) {
    const one = adopt(fs, path, store, backlog)
    found.count += one.count
    found.torn += one.torn
  }
}

// Counts the records of a segment taken over that still want an outcome, skipping a torn tail.
function adopt(fs: SpoolFs, path: string, store: SegmentStore, backlog: Backlog): Found {
  let data: Buffer
  try {
    // A segment is at most its size plus one record: a larger file (a sparse one planted there)
    // is not the spool's, and neither is a FIFO, a device or another user's file.
    data = readFile(fs, path, 0, Infinity, MAX_SEGMENT_FILE_BYTES)
  } catch {
    return { count: 0, torn: 0 }
  }
  // A file that does not begin as a segment is not the spool's: it is left alone.
  if (!isSegmentStart(data)) return { count: 0, torn: 0 }
  const acked = readAcks(fs, ackPathOf(path), data.length)
  const body = data.subarray(SEGMENT_MAGIC.length)
  const { count, bad, frames } = countFrames(body, (o) => !acked.has(o))
  const segment = store.adopt(path, data.length, count, acked, frames)
  backlog.addTakenOver(segment)
  if (count === 0) store.giveUp(segment, 0)
  return { count, torn: bad ? 1 : 0 }
}

/**
 * Before a segment taken over is deleted: when its file grew since it was read, its client was
 * not gone (it was paused, or its clock was wrong) and appended records after the take-over. They
 * are queued to be sent too (those it acked itself since are not), and the file stays until they
 * have their outcome. Returns whether it grew so.
 */
export function adoptGrowth(fs: SpoolFs, segment: Segment, store: SegmentStore, backlog: Backlog): boolean {
  let size: number
  try {
    size = fs.lstatSync(segment.path).size
  } catch {
    return false
  }
  if (size <= segment.size || size > MAX_SEGMENT_FILE_BYTES) return false
  let tail: Buffer
  try {
    tail = readFile(fs, segment.path, segment.size, size - segment.size, MAX_SEGMENT_FILE_BYTES)
  } catch {
    return false
  }
  const first = segment.frames ?? 0
  const acked = new Set([...(segment.acked ?? []), ...readAcks(fs, segment.ackPath, size)])
  // A record its owner is writing right now is read with the next growth.
  const { count, frames, end } = countFrames(tail, (o) => !acked.has(first + o), false)
  const offset = segment.size
  segment.acked = acked
  segment.frames = first + frames
  store.extend(segment, offset + end, count)
  backlog.addTail(segment, offset, first, count)
  return count > 0
}
