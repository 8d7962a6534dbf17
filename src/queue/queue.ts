import { Fifo } from '../core/fifo'
import type { Callback } from '../core/types'

/** One message waiting for its outcome: its JSON text, byte size, order and callback. */
export interface QueuedEntry {
  /** Order of enqueue, from 1: `flush()` waits for every entry up to the last one enqueued before it. */
  readonly seq: number
  /** When it was queued, ms (`Date.now()`): `maxRetryTime` runs from here. */
  readonly at: number
  readonly json: string
  readonly bytes: number
  /** Fields in front of `json`'s own (see `Serialized`): the message is `head + json.slice(1)`. */
  readonly head?: string | undefined
  /** Alias goes to `/v1/alias` in a request of its own; everything else is batched. */
  readonly isAlias: boolean
  readonly callback: Callback | undefined
  /** With a spool: the message's record on disk (acked once it has its outcome); negative when it has none. */
  readonly rec?: number
}

/**
 * The store of entries not yet taken into a request: first in, first out, O(1) at both ends,
 * with a running count of bytes.
 */
export class MessageQueue extends Fifo<QueuedEntry> {
  #bytes = 0

  /** Serialized bytes waiting. */
  get bytes(): number {
    return this.#bytes
  }

  override push(entry: QueuedEntry): void {
    super.push(entry)
    this.#bytes += entry.bytes
  }

  /** Removes and returns the first `count` entries. */
  override take(count: number): QueuedEntry[] {
    const taken = super.take(count)
    for (const entry of taken) this.#bytes -= entry.bytes
    return taken
  }

  override drop(count: number): void {
    for (let i = 0; i < count && i < this.length; i++) this.#bytes -= (this.at(i) as QueuedEntry).bytes
    super.drop(count)
  }
}
