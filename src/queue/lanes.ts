import { BATCH_ENVELOPE_BYTES, planBatch } from './batch'
import { MessageQueue, type QueuedEntry } from './queue'

/** Which lane the next request comes from. */
export type LaneName = 'batch' | 'alias'

/**
 * The queued messages in two lanes: batchable messages (identify, track, page, screen, group) for
 * `/v1/batch`, and aliases, which the wire spec does not carry in a batch and which go to
 * `/v1/alias` one a request. Each lane is first in, first out; the next request is taken from the
 * lane whose first message was queued first, so neither lane starves the other. A batch takes
 * every batchable message up to the byte limit, whatever aliases were queued between them.
 */
export class Lanes {
  // Each lane's queue is made by its first message and let go when it empties: an idle instance of
  // a multi-tenant process holds neither. Reads of a lane that has none see EMPTY.
  #batchQueue: MessageQueue | undefined
  #aliasQueue: MessageQueue | undefined

  get #batch(): MessageQueue {
    return this.#batchQueue ?? EMPTY
  }

  get #alias(): MessageQueue {
    return this.#aliasQueue ?? EMPTY
  }

  // Lets go of the queues that are empty.
  #release(): void {
    if (this.#batchQueue?.length === 0) this.#batchQueue = undefined
    if (this.#aliasQueue?.length === 0) this.#aliasQueue = undefined
  }

  /** Messages waiting in both lanes. */
  get length(): number {
    return this.#batch.length + this.#alias.length
  }

  /** The order number of the first message still waiting in either lane; Infinity when none is. */
  get firstSeq(): number {
    return Math.min(this.#batch.at(0)?.seq ?? Infinity, this.#alias.at(0)?.seq ?? Infinity)
  }

  /** When the first message still waiting in either lane was queued, ms; Infinity when none is. */
  get firstAt(): number {
    return Math.min(this.#batch.at(0)?.at ?? Infinity, this.#alias.at(0)?.at ?? Infinity)
  }

  /** Each message waiting in either lane, left where it is. */
  *waiting(): IterableIterator<QueuedEntry> {
    for (const queue of [this.#batch, this.#alias]) for (let i = 0; i < queue.length; i++) yield queue.at(i) as QueuedEntry
  }

  push(entry: QueuedEntry): void {
    if (entry.isAlias) (this.#aliasQueue ??= new MessageQueue()).push(entry)
    else (this.#batchQueue ??= new MessageQueue()).push(entry)
  }

  /** Whether the batch lane holds more than one request of `maxBodyBytes` can carry: its next batch is full. */
  hasFullBatch(maxBodyBytes: number): boolean {
    return BATCH_ENVELOPE_BYTES + this.#batch.bytes + this.#batch.length - 1 > maxBodyBytes
  }

  /**
   * The lane of the next request, when a message queued up to `dueSeq` waits there, or the batch
   * lane holds a full batch: the lane whose first message is older. The batch lane is passed over unless `mayTakeBatch` (told whether the
   * batch would be full) allows it.
   */
  next(dueSeq: number, mayTakeBatch: (isFull: boolean) => boolean, maxBodyBytes: number): LaneName | undefined {
    const batchSeq = this.#batch.at(0)?.seq ?? Infinity
    const aliasSeq = this.#alias.at(0)?.seq ?? Infinity
    // A full batch goes whether its messages are due or not: waiting cannot make it bigger.
    const isFull = this.hasFullBatch(maxBodyBytes)
    const isBatchReady = batchSeq !== Infinity && (batchSeq <= dueSeq || isFull) && mayTakeBatch(isFull)
    if (isBatchReady && batchSeq < aliasSeq) return 'batch'
    if (aliasSeq <= dueSeq && aliasSeq !== Infinity) return 'alias'
    return isBatchReady ? 'batch' : undefined
  }

  /** The entries of a request from `lane`: an alias alone, or batchable messages queued up to `maxSeq` within `maxBodyBytes`. */
  take(lane: LaneName, maxSeq: number, maxBodyBytes: number): QueuedEntry[] {
    const queue = lane === 'alias' ? this.#alias : this.#batch
    const taken =
      lane === 'alias' ? queue.take(1) : queue.take(planBatch((i) => queue.at(i), Math.max(maxSeq, queue.at(0)?.seq ?? 0), maxBodyBytes))
    this.#release()
    return taken
  }

  /**
   * Removes and returns the messages due (queued up to `dueSeq`) that were queued at or before
   * `cutoffMs`, in order: those that waited for a request slot past their time budget.
   */
  takeExpired(dueSeq: number, cutoffMs: number): QueuedEntry[] {
    const expired = [...takeWhileExpired(this.#batch, dueSeq, cutoffMs), ...takeWhileExpired(this.#alias, dueSeq, cutoffMs)]
    this.#release()
    return expired.sort((a, b) => a.seq - b.seq)
  }

  /** Removes and returns every waiting message, in order. */
  takeAll(): QueuedEntry[] {
    const all = [...this.#batch.take(this.#batch.length), ...this.#alias.take(this.#alias.length)]
    this.#release()
    return all.sort((a, b) => a.seq - b.seq)
  }
}

/** The queue of a lane that has none: always empty (nothing is ever pushed to it). */
const EMPTY = new MessageQueue()

function takeWhileExpired(queue: MessageQueue, dueSeq: number, cutoffMs: number): QueuedEntry[] {
  let count = 0
  for (let entry = queue.at(0); entry !== undefined && entry.seq <= dueSeq && entry.at <= cutoffMs; entry = queue.at(++count));
  return queue.take(count)
}
