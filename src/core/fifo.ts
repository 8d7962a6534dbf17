/**
 * A first-in, first-out list over one array, O(1) at both ends: taking from the front moves a head
 * index instead of shifting the array, and the array is compacted once the taken part is at least
 * half of it (and `compactAt` long), so its memory follows what it holds. The lanes' queues, the
 * request-rate log and the import's watermark are each one of these.
 */
export class Fifo<T> {
  #items: T[] = []
  #head = 0
  readonly #compactAt: number

  /** @param compactAt - how many taken slots may stay in front before the array is compacted. */
  constructor(compactAt = 1024) {
    this.#compactAt = compactAt
  }

  /** Items held. */
  get length(): number {
    return this.#items.length - this.#head
  }

  /** The item `index` places from the front, if there is one. */
  at(index: number): T | undefined {
    return this.#items[this.#head + index]
  }

  /** Replaces the item `index` places from the front (which must exist). */
  set(index: number, item: T): void {
    this.#items[this.#head + index] = item
  }

  /** Adds `item` at the back. */
  push(item: T): void {
    this.#items.push(item)
  }

  /** Removes and returns the first `count` items (fewer when it holds fewer). */
  take(count: number): T[] {
    const start = this.#head
    const taken = this.#items.slice(start, start + count)
    this.#advance(taken.length)
    return taken
  }

  /** Removes the first `count` items without returning them. */
  drop(count: number): void {
    this.#advance(count)
  }

  #advance(count: number): void {
    if (count <= 0) return
    this.#head = Math.min(this.#head + count, this.#items.length)
    if (this.#head === this.#items.length) {
      this.#items = []
      this.#head = 0
    } else if (this.#head >= this.#compactAt && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
  }
}
