import type { Serialized } from '../message/serialize'
import type { Callback } from '../core/types'
import type { FlushOutcome } from './flush-waiters'
import type { QueuedEntry } from './queue'

/**
 * How accepted messages survive: the strategy the scheduler talks to. Without one a client keeps
 * its messages in memory only; the disk spool (`src/durability/`) is the one implementation that
 * writes each message down before the call returns. The scheduler never knows which it has.
 */
export interface Durability {
  /** Keeps a message (on disk first, then in memory or on disk only), or says why it cannot. */
  enqueue(serialized: Serialized, isAlias: boolean, callback: Callback | undefined, isFull: boolean): Error | undefined
  /** Reads back what waits outside memory, as far as memory has room (at most `limit`), and queues it. */
  pageIn(limit?: number): void
  /** Sends what is queued and what waits outside memory; says how many still wait once the service is down. */
  flush(wantBatch: boolean): Promise<FlushOutcome>
  /** Whether a request that failed with `error` waits for the service instead of failing; its `entries` are then told they are kept. */
  waitsAgain(error: Error, entries?: readonly QueuedEntry[]): boolean
  /** The service is down (the breaker opened): `entries` waiting in memory are told they are kept too. */
  keepWaiting(entries: readonly QueuedEntry[], error: Error): void
  /** Entries have their outcome: their records are acked when it is final. Returns how many were replayed. */
  done(entries: readonly QueuedEntry[], error: Error | undefined): number
  /** The client closed; `outcome` is its last flush's. */
  close(outcome: FlushOutcome): void
  /** The strategy's figures for `stats().spool`. */
  readonly stats: SpoolStats
  /** Messages in memory that nothing else keeps: an exit now would lose them. */
  readonly unsaved: number
}

/** What the scheduler lets a durability strategy see and do. */
export interface DurabilityHost {
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
  /** Queues messages read back (their `seq`s follow `seq`), due at once. */
  pushRead(entries: QueuedEntry[]): void
  /** Waits for every message queued up to `through` to have an outcome, or for the breaker to open (`held`). */
  flushQueued(wantBatch: boolean, through: number): Promise<FlushOutcome>
  /** Ends every queued message with `error` and stops taking them into requests. */
  endQueued(error: Error): void
  /** Messages kept outside memory (not queued) end with `error`: their callbacks, counted as failed. */
  endParked(callbacks: readonly Callback[], error: Error): void
}

/** Makes a client's durability strategy, given what the scheduler lets it see. */
export type DurabilityFactory = (host: DurabilityHost) => Durability

/** The spool's figures, `stats().spool` (the disk spool is the one strategy that has them). */
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
