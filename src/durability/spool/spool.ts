import { Backlog, type SpoolRecord } from './backlog'
import { SEGMENT_BYTES, SEGMENT_MAGIC } from './frame'
import { errorCode, realFs, type SpoolFs } from './files'
import { beat, createPart, findMoved, UntrustedDirError, releasePart, removePart } from './parts'
import { SpoolWriteError } from './segment'
import type { SyncFailure } from './sync'
import { SegmentStore } from './segments'
import { segmentIdOf } from './segment'
import { adoptGrowth, takeOverAsPart, takeOverParts } from './takeover'

/** How a spool is set up. */
export interface SpoolSettings {
  readonly dir: string
  readonly maxBytes: number
  /** Who the records may be sent as (`tenantOf(writeKey, host)`): only parts of this tenant are taken over. */
  readonly tenant: string
  /** Bytes of a segment file before a new one begins. */
  readonly segmentBytes?: number
  /** Tests only: a file system that fails (a full disk). */
  readonly fs?: SpoolFs
  /** Messages refused for good are kept in a dead-letter file of at most `maxBytes` (see `rejected.ts`). */
  readonly keepRejected?: { readonly maxBytes: number }
}

/** What the spool tells its client. */
export interface SpoolReports {
  /** The disk refused a write (`code`: `ENOSPC`, `EROFS`, `EACCES` …): the client goes on in memory. */
  unavailable(code: string, message: string): void
  /** Records of a process that is gone were found: `count` to send, `torn` skipped. */
  found(count: number, torn: number): void
  /** A sync (`fdatasync`, or `fsync` of a directory) failed: what it was, and what was done. */
  syncFailed(message: string): void
}

/**
 * A segment is deleted only once every record in it has an outcome, so while messages flow the
 * files hold the records in flight plus up to one whole segment. A segment of 4 MiB in a spool of
 * 1 MiB made a healthy service look full: a segment is at most a sixteenth of `maxBytes` (and at
 * least 64 KiB, so that a busy client does not make a file every few messages).
 */
export function segmentBytesFor(maxBytes: number): number {
  return Math.min(SEGMENT_BYTES, Math.max(64 * 1024, Math.floor(maxBytes / 16)))
}

/** `append` could not keep the record: the spool is at `maxBytes`. */
export const SPOOL_FULL = -1
/** `append` could not keep the record: the disk refuses writes (reported once). */
export const SPOOL_UNAVAILABLE = -2

const TICK_MS = 1000
const BEAT_EVERY_TICKS = 5
const RETRY_EVERY_TICKS = 30
/** No tick ran for this long: the process was paused (its part may have been taken over meanwhile). */
const STALL_MS = 3 * TICK_MS

/**
 * One client's spool: its part of the directory, the records it wrote and those it took over, and
 * the timer that syncs them to the disk every second and beats the part's heartbeat.
 */
export class Spool {
  readonly #fs: SpoolFs
  readonly #root: string
  readonly #maxBytes: number
  readonly #tenant: string
  readonly #reports: SpoolReports
  readonly #store: SegmentStore
  readonly #backlog: Backlog
  readonly #timer: ReturnType<typeof setInterval>
  #part: string | undefined
  #ticks = 0
  #lastTickAt = performance.now()
  #lastCheckAt = 0
  #failedAt = -1
  #down = false
  #closed = false

  constructor(settings: SpoolSettings, reports: SpoolReports) {
    this.#fs = settings.fs ?? realFs
    this.#root = settings.dir.replace(/\/+$/, '') || '/'
    this.#maxBytes = settings.maxBytes
    this.#tenant = settings.tenant
    this.#reports = reports
    this.#store = new SegmentStore(this.#fs, settings.segmentBytes ?? segmentBytesFor(settings.maxBytes))
    this.#backlog = new Backlog(this.#fs, this.#store)
    this.#store.grew = (segment) => adoptGrowth(this.#fs, segment, this.#store, this.#backlog)
    this.#store.syncFailed = (failures, copied) => this.#syncFailed(failures, copied)
    this.#timer = setInterval(() => this.#tick(), TICK_MS)
    this.#timer.unref?.()
    this.#openPart()
  }

  /** This client's part of the directory (undefined while the disk refuses it). */
  get part(): string | undefined {
    return this.#part
  }

  /** Whether records are written: false while the disk refuses writes. */
  get isAvailable(): boolean {
    return this.#failedAt < 0 && this.#part !== undefined
  }

  /** Bytes of the spool's segments on disk. */
  get bytes(): number {
    return this.#store.bytes
  }

  /** Records that wait on the disk only, not in memory. */
  get onDiskOnly(): number {
    return this.#backlog.count
  }

  /** Torn records found and skipped. */
  get torn(): number {
    return this.#backlog.torn
  }

  /** Whether this process's own records wait on the disk only: new ones must too, to keep the order. */
  get isOverflowing(): boolean {
    return this.#backlog.hasOwn
  }

  /**
   * Writes a message's record (to the kernel: a process killed after this loses nothing) and
   * returns its reference; {@link SPOOL_FULL} or {@link SPOOL_UNAVAILABLE} when it could not.
   * With `diskOnly`, the record is read back later: the client keeps no copy in memory.
   */
  append(head: string | undefined, json: string, isAlias: boolean, diskOnly: boolean): number {
    this.#afterStall()
    if (!this.isAvailable) return SPOOL_UNAVAILABLE
    const before = this.#store.active
    const offset = before?.size ?? SEGMENT_MAGIC.length
    let ref: number
    try {
      ref = this.#store.append(head, json, isAlias, this.#maxBytes)
    } catch (err) {
      this.#fail(err instanceof SpoolWriteError ? err.code : errorCode(err), String((err as Error)?.message ?? err))
      return SPOOL_UNAVAILABLE
    }
    if (ref < 0) return SPOOL_FULL
    this.#down = false
    if (diskOnly) {
      const segment = this.#store.get(segmentIdOf(ref))
      if (segment !== undefined) this.#backlog.addOwn(segment, segment === before ? offset : SEGMENT_MAGIC.length, ref)
    }
    return ref
  }

  /** These records have their outcome (delivered, or refused for good): they are not sent again. */
  ack(refs: readonly number[]): void {
    if (refs.length > 0) this.#store.ack(refs)
  }

  /** These records had an outcome that does not end them (401, 403, a redirect): they stay on disk, without pinning their segment. */
  keep(refs: readonly number[], bytes: readonly number[]): void {
    if (refs.length > 0) this.#store.keep(refs, bytes)
  }

  /** Reads back up to `maxCount` records that wait on the disk only. */
  read(maxCount: number, maxBytes: number): SpoolRecord[] {
    this.#afterStall()
    return this.#backlog.count > 0 ? this.#backlog.read(maxCount, maxBytes) : []
  }

  /** Syncs what was written to the disk itself (`fdatasync`). */
  sync(): Promise<void> {
    return this.#store.sync()
  }

  /** Takes over the parts of clients that are gone; what it found is reported (`found`). */
  takeOver(): void {
    let count = 0
    let torn = 0
    if (this.#part === undefined) {
      // No part could be made (a full disk): a gone client's part becomes this one's, by a rename.
      const taken = takeOverAsPart(this.#fs, this.#root, this.#tenant, this.#store, this.#backlog)
      if (taken === undefined) return
      this.#part = taken.part
      this.#store.writeTo(taken.part)
      ;({ count, torn } = taken)
    }
    const more = takeOverParts(this.#fs, this.#root, this.#part, this.#tenant, this.#store, this.#backlog)
    count += more.count
    torn += more.torn
    if (count > 0 || torn > 0) this.#reports.found(count, torn)
  }

  /**
   * Stops the timer and closes the files. When no record waits any more, the part is deleted;
   * otherwise it stays for the next client on the directory.
   */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    this.#store.close()
    const part = this.#part
    if (part === undefined) return
    releasePart(part)
    if (this.#store.isEmpty && this.#backlog.count === 0) {
      try {
        removePart(this.#fs, part)
      } catch {
        // Left for the next client: an empty part costs it a directory read.
      }
    }
  }

  #openPart(): void {
    try {
      this.#part = createPart(this.#fs, this.#root, this.#tenant)
      this.#store.changed(this.#root)
      this.#store.changed(this.#part)
      this.#store.writeTo(this.#part)
      this.#failedAt = -1
    } catch (err) {
      const message = String((err as Error)?.message ?? err)
      this.#fail(errorCode(err), err instanceof UntrustedDirError ? message : `cannot make a part in ${this.#root}: ${message}`)
    }
  }

  #syncFailed(failures: readonly SyncFailure[], copied: number | Error): void {
    const what = failures.map((f) => `${f.path} (${f.code})`).join(', ')
    const done =
      typeof copied === 'number'
        ? `the ${copied} records written since its last good sync are not taken as safe: they were written again to a new segment`
        : `the records written since its last good sync are not safe on the disk, and could not be written again (${errorCode(copied)}): they are sent from memory and the page cache`
    // Each failed sync is told (at most one a second, and one a flush): a flush that resolves with
    // none told synced what was accepted before it.
    this.#reports.syncFailed(`the disk refused to sync ${what}: ${done}`)
    if (copied instanceof Error) this.#fail(errorCode(copied), String(copied.message))
  }

  #fail(code: string, message: string): void {
    this.#failedAt = this.#ticks
    if (this.#down) return
    this.#down = true
    this.#reports.unavailable(code, message)
  }

  #tick(): void {
    this.#ticks += 1
    void this.#store.sync()
    if (this.#failedAt >= 0 && this.#ticks - this.#failedAt >= RETRY_EVERY_TICKS) this.#retry()
    const beaten = this.#afterStall(true)
    if (this.#ticks % BEAT_EVERY_TICKS !== 0) return
    if (!beaten && this.#part !== undefined && !beat(this.#fs, this.#part)) this.#moveOn()
    this.takeOver()
  }

  /**
   * Before anything is written or read after the process was paused (no tick for a while: a
   * debugger, SIGSTOP, a VM paused, an event loop blocked), whether another client took this part
   * over meanwhile (it thought this one gone): nothing more goes to the part it took. Returns
   * whether it looked (and beat).
   */
  #afterStall(isTick = false): boolean {
    const now = performance.now()
    const stalled = now - this.#lastTickAt > STALL_MS
    if (isTick) this.#lastTickAt = now
    // At most once a second while no tick runs: a long synchronous run of calls does not check on each.
    if (!stalled || now - this.#lastCheckAt < TICK_MS) return false
    this.#lastCheckAt = now
    if (this.#part !== undefined && !beat(this.#fs, this.#part)) this.#moveOn()
    return true
  }

  // Another client took this part over (this one was thought gone): its files are where that
  // client put them; this client reads and acks them there, and goes on writing in a new part.
  // What it wrote stays sent at least once: by that client (what it read, and what was appended
  // after, see adoptGrowth), or by this one (what it holds), never deleted while either needs it.
  #moveOn(): void {
    const part = this.#part as string
    releasePart(part)
    const name = part.slice(part.lastIndexOf('/') + 1)
    const moved = findMoved(this.#fs, this.#root, name)
    if (moved !== undefined) this.#store.retarget(part, moved)
    this.#part = undefined
    this.#openPart()
  }

  #retry(): void {
    // Tried again on the next append; a new failure is reported once a write succeeded in between.
    if (this.#part === undefined) this.#openPart()
    else this.#failedAt = -1
  }
}
