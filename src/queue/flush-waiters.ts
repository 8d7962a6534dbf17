import { parseBatch } from './settle'
import type { Message } from '../core/types'
import type { QueuedEntry } from './queue'

/** What a `flush()` came to: the first error among the messages it covered, and those messages when asked. */
export interface FlushOutcome {
  readonly error: Error | undefined
  readonly batch: Message[] | undefined
  /** With a spool: the service is down, and the messages wait on disk (`waiting` of them). */
  readonly held?: boolean
  readonly waiting?: number
}

interface FlushWaiter {
  readonly target: number
  error: Error | undefined
  readonly batch: Message[] | undefined
  readonly resolve: (outcome: FlushOutcome) => void
}

/**
 * The calls of `flush()` still waiting: each waits for every message enqueued before it (order
 * numbers up to its target) to have an outcome, and learns the first error among them.
 */
export class FlushWaiters {
  // Targets only grow, so the waiters are in the order they resolve. Made by the first waiter and
  // let go when none is left: an idle instance of a multi-tenant process holds no array.
  #waiters: FlushWaiter[] | undefined

  /** Waiters not yet resolved. */
  get size(): number {
    return this.#waiters?.length ?? 0
  }

  /** Adds a waiter for the messages up to `target`. */
  add(target: number, wantBatch: boolean, resolve: (outcome: FlushOutcome) => void): void {
    ;(this.#waiters ??= []).push({ target, error: undefined, batch: wantBatch ? [] : undefined, resolve })
  }

  /**
   * Entries of one request have their outcome: every waiter that covers some of them learns it.
   * Called before their callbacks run, so that a `flush()` a callback starts does not inherit it.
   */
  record(entries: readonly QueuedEntry[], minSeq: number, error: Error | undefined): void {
    let parsed: Message[] | undefined
    for (const waiter of this.#waiters ?? []) {
      if (waiter.target < minSeq) continue
      waiter.error ??= error
      if (waiter.batch === undefined) continue
      parsed ??= parseBatch(entries)
      for (let i = 0; i < entries.length; i++) if (entries[i].seq <= waiter.target) waiter.batch.push(parsed[i])
    }
  }

  /** Resolves every waiter now, as held (the service is down; the messages wait on disk). Returns how many. */
  releaseAll(): number {
    const all = this.#waiters ?? []
    this.#waiters = undefined
    for (const waiter of all) waiter.resolve({ error: waiter.error, batch: waiter.batch, held: true })
    return all.length
  }

  /** Resolves the waiters whose messages all have an outcome: those below `firstPendingSeq`. Returns how many. */
  resolveBelow(firstPendingSeq: number): number {
    const waiters = this.#waiters
    if (waiters === undefined) return 0
    let count = 0
    while (count < waiters.length && waiters[count].target < firstPendingSeq) count += 1
    if (count === 0) return 0
    const resolved = waiters.splice(0, count)
    if (waiters.length === 0) this.#waiters = undefined
    for (const waiter of resolved) waiter.resolve({ error: waiter.error, batch: waiter.batch })
    return count
  }
}
