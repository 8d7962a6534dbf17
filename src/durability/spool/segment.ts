/** Records a segment may hold: a record's reference is `segment id × this + ordinal`. */
export const RECORDS_PER_SEGMENT = 2 ** 21

/** The id of the segment that a record's reference points into. */
export function segmentIdOf(ref: number): number {
  return Math.floor(ref / RECORDS_PER_SEGMENT)
}

/** The ordinal of a record in its segment, from its reference. */
export function ordinalOf(ref: number): number {
  return ref % RECORDS_PER_SEGMENT
}

/** Where the run of `refs` that starts at `from` and points into one segment ends. */
export function endOfSegmentRun(refs: readonly number[], from: number): number {
  const id = segmentIdOf(refs[from])
  let to = from + 1
  while (to < refs.length && segmentIdOf(refs[to]) === id) to++
  return to
}

/** One segment file, this process's own or one taken over from a process that died. */
export interface Segment {
  readonly id: number
  /** Where the file is (its part moves when a client takes it over). */
  path: string
  ackPath: string
  /** This process's own (it writes to it) or taken over (it only reads it and acks its records). */
  readonly own: boolean
  /** The descriptor appended to (own, while it is the active one); -1 else. */
  fd: number
  ackFd: number
  /** Bytes in the file. */
  size: number
  /** Records in it that will get an outcome here (own: all written so far; taken over: those without one). */
  total: number
  /** Of those, how many have it. */
  done: number
  /** No record will be added. */
  sealed: boolean
  /** Own: bytes of it synced (`fdatasync`), and the records in them; see `SyncPlan`. */
  synced?: number
  syncedTotal?: number
  /** Own: its name is synced in its directory (until then a power loss may take the whole file). */
  named?: boolean
  /** Own: a sync of it failed: nothing more of it is taken as durable (its records were written again). */
  unsafe?: boolean
  /**
   * Records that had an outcome here that does not end them (a refusal of the client's setup:
   * 401, 403, a redirect): they stay on disk for a client set up right, and are copied forward
   * when the rest of their segment is done (see `SegmentStore`).
   */
  kept?: { count: number; bytes: number; readonly ordinals: Set<number> }
  /** Taken over: the records of the file when it was read (the ordinal of the next one). */
  frames?: number
  /**
   * The ordinals not to read here: taken over, those that had their outcome in an earlier process;
   * own, the copies of kept records (they had theirs).
   */
  acked: ReadonlySet<number> | undefined
}

/** Whatever a write to the disk could not do: the segment is left as it was before it. */
export class SpoolWriteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A new segment's record: `own` (this process writes to it, on descriptor `fd`, `size` bytes so
 * far) or taken over (read only: `total` of its `frames` records wait for an outcome, `acked` had
 * theirs).
 */
export function newSegment(
  id: number,
  path: string,
  ackPath: string,
  own: { fd: number; size: number } | { size: number; total: number; acked: ReadonlySet<number>; frames: number },
): Segment {
  const base = { id, path, ackPath, ackFd: -1, done: 0, size: own.size }
  if ('fd' in own) return { ...base, own: true, fd: own.fd, total: 0, sealed: false, acked: undefined }
  return { ...base, own: false, fd: -1, total: own.total, sealed: true, acked: own.acked, frames: own.frames }
}
