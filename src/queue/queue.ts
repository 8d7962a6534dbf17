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

const COMPACT_AT = 1024

/**
 * The store of entries not yet taken into a request: first in, first out, O(1) at both ends,
 * with a running count of bytes.
 */
export class MessageQueue {
  #items: QueuedEntry[] = []
  #head = 0
  #bytes = 0

  /** Entries waiting. */
  get length(): number {
    return this.#items.length - this.#head
  }

  /** Serialized bytes waiting. */
  get bytes(): number {
    return this.#bytes
  }

  /** The entry `index` places from the front, if there is one. */
  at(index: number): QueuedEntry | undefined {
    return this.#items[this.#head + index]
  }

  push(entry: QueuedEntry): void {
    this.#items.push(entry)
    this.#bytes += entry.bytes
  }

  /** Removes and returns the first `count` entries. */
  take(count: number): QueuedEntry[] {
    const start = this.#head
    const taken = this.#items.slice(start, start + count)
    this.#head += taken.length
    for (const entry of taken) this.#bytes -= entry.bytes
    if (this.#head === this.#items.length) {
      this.#items = []
      this.#head = 0
    } else if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    return taken
  }
}
