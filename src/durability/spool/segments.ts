import { encodeFrame, encoded, SEGMENT_MAGIC } from './frame'
import { copyKept, markKept } from './kept'
import { closeQuietly, type SpoolFs } from './files'
import { ackPathOf, ackWord, appendAcks, appendRecords, createSegmentFile, dirOf, removeSegmentFiles } from './segment-files'
import { endOfSegmentRun, newSegment, ordinalOf, RECORDS_PER_SEGMENT, segmentIdOf, type Segment } from './segment'
import { rescue, withCopies } from './rescue'
import { SyncPlan, type SyncFailure } from './sync'

export type { Segment } from './segment'

/**
 * The active segment, each of its records done, is deleted (a new one begun) past this share of
 * the segment size. A segment costs ~7 system calls: at 64 KB, 200,000 events made ~1,200 of them.
 */
const RECLAIM_SHARE = 4

/**
 * The segments the spool knows: it appends records to its own active segment (a new one every
 * `segmentBytes`), writes the ordinals of records that have an outcome to the segment's ack file,
 * and deletes a segment and its ack file once each record in it has one. Disk use is so
 * proportional to the records without an outcome (plus at most one segment).
 */
export class SegmentStore {
  readonly #fs: SpoolFs
  readonly #segmentBytes: number
  readonly #segments = new Map<number, Segment>()
  readonly #plan: SyncPlan
  /** Records written again after a failed sync: the reference of each original, and of its copy. */
  readonly #copies = new Map<number, number>()
  readonly #scratch = Buffer.allocUnsafe(64 * 1024)
  #nextId = 1
  #nextOwn = 1
  #ownDir = ''
  #active: Segment | undefined
  #compacting = false
  #closed = false
  readonly #toCompact = new Set<Segment>()
  /** Bytes of every segment still on disk. */
  bytes = 0

  constructor(fs: SpoolFs, segmentBytes: number) {
    this.#fs = fs
    this.#segmentBytes = segmentBytes
    this.#plan = new SyncPlan(fs)
    this.#plan.failed = (failures) => this.syncFailed?.(failures, this.#rescue(failures))
  }

  /** Called after a sync the disk refused, with the records written again, or why they could not be. */
  syncFailed: ((failures: readonly SyncFailure[], copied: number | Error) => void) | undefined

  /** An entry of `dir` changed (a part made or renamed into it): synced with the next sync. */
  changed(dir: string): void {
    this.#plan.changed(dir)
  }

  /** Own segments go to `dir` from now on (a new active segment is begun there on the next append). */
  writeTo(dir: string): void {
    this.#seal()
    this.#ownDir = dir
  }

  /**
   * This client's part was moved from `from` to `to` (taken over while it lived): its segments are
   * there now, its own and those it had taken over itself.
   */
  retarget(from: string, to: string): void {
    for (const segment of this.#segments.values()) {
      if (!segment.path.startsWith(`${from}/`)) continue
      segment.path = to + segment.path.slice(from.length)
      segment.ackPath = ackPathOf(segment.path)
    }
  }

  get(id: number): Segment | undefined {
    return this.#segments.get(id)
  }

  /** The active own segment, if one is open. */
  get active(): Segment | undefined {
    return this.#active
  }

  /**
   * Called before a segment taken over is deleted: true when its file grew since it was read (a
   * live client still appended to it: its new records were added, and it is not deleted).
   */
  grew: ((segment: Segment) => boolean) | undefined

  /** Registers a segment taken over: `total` of its `frames` records wait for an outcome here. */
  adopt(path: string, size: number, total: number, acked: ReadonlySet<number>, frames: number): Segment {
    const segment = newSegment(this.#nextId++, path, ackPathOf(path), { size, total, acked, frames })
    this.#segments.set(segment.id, segment)
    this.bytes += size
    return segment
  }

  /**
   * Appends the record of a message and returns its reference, the disk having it (the kernel's
   * page cache: a process killed now loses nothing), or -1 when the spool's files would pass
   * `maxBytes`. Throws a {@link SpoolWriteError} when the disk cannot take it; the segment is then as before.
   */
  append(head: string | undefined, json: string, isAlias: boolean, maxBytes: number): number {
    const length = encodeFrame(this.#scratch, head, json, isAlias)
    // Ack files are not counted: 4 bytes a record at most, deleted with their segment.
    if (this.bytes + length + (this.#active === undefined ? SEGMENT_MAGIC.length : 0) > maxBytes) return -1
    return this.#write(encoded, length)
  }

  // Appends one encoded record to the active segment (begun when there is none) and returns its reference.
  #write(buffer: Buffer, length: number): number {
    const segment = this.#active ?? this.#begin()
    appendRecords(this.#fs, segment, buffer, length, () => this.#seal())
    segment.size += length
    this.bytes += length
    this.#plan.written(segment.fd, segment)
    const ref = segment.id * RECORDS_PER_SEGMENT + segment.total
    segment.total += 1
    if (segment.size >= this.#segmentBytes || segment.total >= RECORDS_PER_SEGMENT) this.#seal()
    return ref
  }

  /** The records of `refs` have an outcome: their ordinals go to the ack files, and done segments go. */
  ack(refs: readonly number[]): void {
    if (this.#copies.size > 0) refs = withCopies(this.#copies, refs, refs)[0]
    for (let i = 0; i < refs.length;) {
      const segment = this.#segments.get(segmentIdOf(refs[i]))
      const j = endOfSegmentRun(refs, i)
      if (segment !== undefined) this.#ackIn(segment, refs, i, j)
      i = j
    }
  }

  /**
   * The records of `refs` (of `bytes` each, about) had an outcome that does not end them: they
   * stay on disk for a client set up right (see `SpoolFlow.done`). They no longer pin their
   * segment: once the rest of it is done, they are copied forward and it is deleted.
   */
  keep(refs: readonly number[], bytes: readonly number[]): void {
    if (this.#copies.size > 0) [refs, bytes] = withCopies(this.#copies, refs, bytes)
    for (let k = 0; k < refs.length; k++) {
      const segment = this.#segments.get(segmentIdOf(refs[k]))
      if (segment === undefined) continue
      markKept(segment, ordinalOf(refs[k]), bytes[k], false)
      this.#settle(segment)
    }
  }

  /** `count` records of `segment` will never be read (torn, or the file went): they count as done. */
  giveUp(segment: Segment, count: number): void {
    segment.total = Math.max(segment.done + (segment.kept?.count ?? 0), segment.total - count)
    if (segment.sealed) this.#settle(segment)
  }

  #ackIn(segment: Segment, refs: readonly number[], from: number, to: number): void {
    segment.done += to - from
    // Written also when they are its last: its file is deleted only after the next good sync.
    const ordinals = Buffer.allocUnsafe((to - from) * 4)
    for (let k = from; k < to; k++) ordinals.writeUInt32LE(ackWord(ordinalOf(refs[k])), (k - from) * 4)
    appendAcks(this.#fs, segment, ordinals, (dir) => this.#plan.changed(dir))
    this.#settle(segment)
  }

  /**
   * A segment each of whose records has an outcome goes: deleted, once its kept records (if any)
   * are copied forward, unless they are most of it (then it is mostly what must stay on disk, and
   * stays). The active segment goes past a size only, a new one being begun. True when it went.
   */
  #settle(segment: Segment): boolean {
    const kept = segment.kept
    if (segment.done + (kept?.count ?? 0) < segment.total) return false
    if (!segment.sealed) {
      if (segment.size * RECLAIM_SHARE < this.#segmentBytes) return false
      this.#seal()
      return !this.#segments.has(segment.id)
    }
    if (kept === undefined || kept.count === 0) return this.#delete(segment)
    // Closing: no new segment is begun; the next client on the directory has them as they are.
    if (kept.bytes * 2 > segment.size || this.#closed) return false
    if (this.#compacting) {
      this.#toCompact.add(segment)
      return false
    }
    this.#compacting = true
    try {
      const went = this.#moveKept(segment)
      for (const next of this.#toCompact) {
        this.#toCompact.delete(next)
        if (this.#segments.has(next.id)) this.#moveKept(next)
      }
      return went
    } finally {
      this.#compacting = false
    }
  }

  // Copies the kept records of a done segment to the active one (marked there as kept: never read
  // here), then deletes it. A copy the disk refuses leaves the segment as it is (at worst a
  // duplicate later, with the same messageId).
  #moveKept(segment: Segment): boolean {
    const copied = copyKept(this.#fs, segment, this.#scratch, (buffer, length) => {
      const ref = this.#write(buffer, length)
      markKept(this.#segments.get(segmentIdOf(ref)) as Segment, ordinalOf(ref), length, true)
    })
    return copied && this.#delete(segment, true)
  }

  /** Deletes a segment and its ack file; false when it is kept (it grew). */
  #delete(segment: Segment, afterSync = false): boolean {
    // A take-over never deletes what a live owner still appended (it was thought gone): those are sent too.
    if (!segment.own && this.grew?.(segment) === true) return false
    if (!this.#segments.delete(segment.id)) return true
    this.bytes -= segment.size
    // Every record of it had its outcome: it goes now. One whose kept records were copied forward
    // goes once the copies are synced (a power loss in between must not take both).
    removeSegmentFiles(
      this.#fs,
      segment,
      (fd) => this.#plan.forget(fd),
      (paths) => this.#plan.remove(paths, afterSync),
    )
    return true
  }

  /** A segment taken over grew to `size` bytes: `count` more of its records wait for an outcome here. */
  extend(segment: Segment, size: number, count: number): void {
    this.bytes += size - segment.size
    segment.size = size
    segment.total += count
  }

  /** Whether some segment still holds records without an outcome. */
  get isEmpty(): boolean {
    for (const segment of this.#segments.values()) if (segment.done < segment.total) return false
    return true
  }

  /** The own segments in the order they were written, the active one last. */
  ownAfter(id: number): Segment | undefined {
    let next: Segment | undefined
    for (const segment of this.#segments.values())
      if (segment.own && segment.id > id && (next === undefined || segment.id < next.id)) next = segment
    return next
  }

  /** Hands what was written to the disk itself (`fdatasync`): after it, a power loss loses none of it. */
  sync(): Promise<void> {
    return this.#plan.sync()
  }

  // The records a failed sync left in doubt are written again (see `rescue`).
  #rescue(failures: readonly SyncFailure[]): number | Error {
    return rescue(failures, RECORDS_PER_SEGMENT, {
      fs: this.#fs,
      scratch: this.#scratch,
      copies: this.#copies,
      get: (id) => this.#segments.get(id),
      seal: (segment) => segment === this.#active && this.#seal(),
      write: (buffer, length) => this.#write(buffer, length),
    })
  }

  /** Closes every descriptor (the files stay). */
  close(): void {
    this.#closed = true
    this.#seal()
    // Files whose deletion waits for a sync (see `#moveKept`) go with this last one.
    void this.#plan.sync()
    for (const segment of this.#segments.values()) {
      if (segment.ackFd >= 0) closeQuietly(this.#fs, segment.ackFd)
      segment.ackFd = -1
    }
  }

  #begin(): Segment {
    // A part taken over as this client's own (see `claimAsPart`) holds its first owner's segments: their names are skipped.
    const { path, fd } = createSegmentFile(this.#fs, this.#ownDir, () => this.#nextOwn++)
    const segment = newSegment(this.#nextId++, path, ackPathOf(path), { fd, size: SEGMENT_MAGIC.length })
    this.#segments.set(segment.id, segment)
    this.bytes += segment.size
    this.#plan.changed(dirOf(path), segment)
    this.#active = segment
    return segment
  }

  // No more records go to the active segment: its data is synced and its descriptor closed; one
  // whose records are all done (none kept) is deleted at once, unsynced: nothing of it must survive.
  #seal(): void {
    const segment = this.#active
    if (segment === undefined) return
    this.#active = undefined
    segment.sealed = true
    const isDone = segment.done >= segment.total && (segment.kept?.count ?? 0) === 0
    if (!isDone) {
      this.#plan.seal(segment.fd, segment)
      segment.fd = -1
    }
    this.#settle(segment)
  }
}
