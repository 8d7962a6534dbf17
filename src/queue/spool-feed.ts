import { DeliveryError, QueueFullError, ServiceUnavailableError, SpoolError } from '../errors'
import { messageText, type Serialized } from '../message/serialize'
import { utf8ByteLength } from '../runtime'
import type { ResolvedSpool } from '../spool-option'
import type { Spool, SpoolFs } from '../spool/index'
import type { Callback } from '../types'
import type { QueuedEntry } from './queue'
import { loadSpoolModule } from './spool-load'

/** `write` kept the message on the disk only: it is read back when memory has room. */
export const ON_DISK_ONLY = -3
/** `write` could not put the message on the disk (it refuses writes): it is kept in memory only. */
export const NOT_ON_DISK = -2

/** What the spool tells the client. */
export interface FeedReports {
  /** The disk refuses writes (a `SpoolError`), or a callback threw. */
  report(error: Error): void
  /** Records of a process that is gone were taken over: `count` to send, `torn` skipped. */
  found(count: number, torn: number): void
}

/** The spool's figures for `stats().spool`. */
export interface SpoolStats {
  /** This client's part of the spool directory; undefined while the disk refuses writes. */
  readonly part: string | undefined
  /** Bytes of the spool's files. */
  readonly bytes: number
  /** Messages waiting on the disk only (not in memory): read back when memory has room or the service is back. */
  readonly onDiskOnly: number
  /** Messages taken over from a process that is gone (sent again with their `messageId`). */
  readonly replayed: number
  /** Records found torn (cut off by a crash) and skipped, never sent. */
  readonly torn: number
  /** False while the disk refuses writes: messages are then kept in memory only. */
  readonly available: boolean
}

/**
 * The client's side of the disk spool: it writes each accepted message's record, keeps the
 * callbacks of messages that wait on the disk only, reads records back into entries, and acks the
 * records of messages that have their outcome. The spool's own code is loaded here, on first use.
 */
export class SpoolFeed {
  readonly #spool: Spool
  readonly #settings: ResolvedSpool
  readonly #callbacks = new Map<number, Callback>()
  readonly #replayed = new Set<number>()
  #replayedTotal = 0
  /** Entries in memory without a record (the disk refused it): lost if the process dies. */
  unsaved = 0

  constructor(settings: ResolvedSpool, reports: FeedReports) {
    const { openSpool } = loadSpoolModule()
    this.#settings = settings
    this.#spool = openSpool(
      { dir: settings.dir, maxBytes: settings.maxBytes, fs: settings.fs as SpoolFs | undefined },
      {
        unavailable: (code, message) =>
          reports.report(new SpoolError(code, `spool: ${message}; messages are kept in memory only until the disk takes writes again`)),
        available: () => undefined,
        found: (count, torn) => reports.found(count, torn),
      },
    )
  }

  /** Takes over the parts of clients that are gone (at construction, then every 5 s by itself). */
  takeOver(): void {
    this.#spool.takeOver()
  }

  /**
   * Writes the record of a message: returns its reference, {@link ON_DISK_ONLY} (kept on the
   * disk only: memory is full, or earlier messages wait there), {@link NOT_ON_DISK}, or the
   * `QueueFullError` of a spool at `maxBytes`.
   */
  write(serialized: Serialized, isAlias: boolean, diskOnly: boolean, callback: Callback | undefined): number | QueueFullError {
    const onlyDisk = diskOnly || this.#spool.isOverflowing
    const ref = this.#spool.append(messageText(serialized), isAlias, onlyDisk)
    if (ref === -1) {
      return new QueueFullError(
        `the spool is full (${this.#spool.bytes} bytes in ${this.#settings.dir}; spool.maxBytes ${this.#settings.maxBytes}): the message was not queued`,
      )
    }
    if (ref < 0) return NOT_ON_DISK
    if (!onlyDisk) return ref
    if (callback !== undefined) this.#callbacks.set(ref, callback)
    return ON_DISK_ONLY
  }

  /** Messages waiting on the disk only. */
  get onDiskOnly(): number {
    return this.#spool.onDiskOnly
  }

  /** Reads back up to `maxCount` messages (about `maxBytes`) waiting on the disk only, as entries from `seq + 1`. */
  read(maxCount: number, maxBytes: number, seq: number): QueuedEntry[] {
    const now = Date.now()
    return this.#spool.read(maxCount, maxBytes).map((record) => {
      const callback = this.#callbacks.get(record.ref)
      if (callback !== undefined) this.#callbacks.delete(record.ref)
      if (record.replayed) this.#replayed.add(record.ref)
      const json = record.text
      return { seq: ++seq, at: now, json, bytes: utf8ByteLength(json), head: undefined, isAlias: record.isAlias, callback, rec: record.ref }
    })
  }

  /**
   * Entries have their outcome: their records are acked when it is final (delivered, or the
   * service refused the message itself); else they stay for the next client. Returns how many
   * of them were replayed.
   */
  done(entries: readonly QueuedEntry[], error: Error | undefined): number {
    const ack = error === undefined || isMessageRefusal(error)
    const refs: number[] = []
    let replayed = 0
    for (const entry of entries) {
      const rec = entry.rec
      if (rec === undefined || rec < 0) {
        this.unsaved -= 1
        continue
      }
      if (ack) refs.push(rec)
      if (this.#replayed.delete(rec)) replayed += 1
    }
    this.#replayedTotal += replayed
    this.#spool.ack(refs)
    return replayed
  }

  /** Syncs the spool's files to the disk itself. */
  sync(): Promise<void> {
    return this.#spool.sync()
  }

  /** Stops the spool's timer and closes its files; its part stays when messages wait in it. */
  close(): void {
    this.#spool.close()
  }

  get stats(): SpoolStats {
    const spool = this.#spool
    return {
      part: spool.part,
      bytes: spool.bytes,
      onDiskOnly: spool.onDiskOnly,
      replayed: this.#replayedTotal,
      torn: spool.torn,
      available: spool.isAvailable,
    }
  }
}

/**
 * Whether a failed request waits for the service rather than failing, with a spool: it is down
 * (the breaker), did not answer, answered 5xx, 408 or 429, or the retries ran out on those.
 */
export function waitsForService(error: Error): boolean {
  if (error instanceof ServiceUnavailableError) return true
  if (!(error instanceof DeliveryError)) return false
  const status = error.status
  return status === undefined || status >= 500 || status === 408 || status === 429
}

// The service refused the message itself (it will never take it): its record goes. Other
// refusals (a wrong write key, a redirect) stay on disk for a client configured right.
function isMessageRefusal(error: Error): boolean {
  return error instanceof DeliveryError && (error.status === 400 || error.status === 413 || error.status === 422)
}
