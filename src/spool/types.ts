import type { FlushOutcome } from '../queue/flush-waiters'
import type { QueuedEntry } from '../queue/queue'
import type { Callback } from '../types'

/** What the client's scheduler lets the spool see and do. */
export interface SpoolHost {
  readonly maxQueueSize: number
  readonly maxQueueBytes: number
  /** Messages (and their bytes) in memory without an outcome. */
  pending(): { readonly count: number; readonly bytes: number }
  /** The order number of the last message queued. */
  seq(): number
  /** The closeAndFlush timeout passed, or the client closed while the service was down. */
  gaveUp(): boolean
  /** The outage breaker is open. */
  isDown(): boolean
  /** Queues a new message (its `seq` is `seq + 1`). */
  push(entry: QueuedEntry): void
  /** Queues messages read back from the disk (their `seq`s follow `seq`), due at once. */
  pushRead(entries: QueuedEntry[]): void
  /** Waits for every message queued up to `through` to have an outcome, or for the breaker to open (`held`). */
  flushQueued(wantBatch: boolean, through: number): Promise<FlushOutcome>
  /** Ends every queued message with `error` and stops taking them into requests. */
  endQueued(error: Error): void
  /** Messages kept on the disk only (not queued) end with `error`: their callbacks, counted as failed. */
  endParked(callbacks: readonly Callback[], error: Error): void
}

/** What the library gives the spool: its error classes (one copy of each) and where to report. */
export interface SpoolDeps {
  readonly QueueFullError: new (message: string) => Error
  readonly SpoolError: new (code: string, message: string) => Error
  readonly ServiceUnavailableError: new (message: string) => Error
  readonly DeliveryError: new (message: string) => Error
  /** The disk refuses writes (a `SpoolError`). */
  report(error: Error): void
  /** Records of a gone client were taken over: `count` to send, `torn` skipped. */
  replay(count: number, torn: number): void
}

/** The spool's figures for `stats().spool`. */
export interface SpoolStats {
  /** This client's part of the spool directory; undefined while the disk refuses writes. */
  readonly part: string | undefined
  /** Bytes of the spool's files. */
  readonly bytes: number
  /** Messages waiting on the disk only (not in memory): read back when memory has room or the service is back. */
  readonly onDiskOnly: number
  /** Messages taken over from a client that is gone, and sent again with their `messageId`. */
  readonly replayed: number
  /** Records found torn (cut off by a crash) and skipped, never sent. */
  readonly torn: number
  /** Records whose checksum held but whose text is not a message of their kind: skipped, never sent (each reported as a `SpoolError` with code `EBADRECORD`). */
  readonly invalid: number
  /** False while the disk refuses writes: messages are then kept in memory only. */
  readonly available: boolean
}
