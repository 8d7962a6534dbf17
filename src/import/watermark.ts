import { Fifo } from '../core/fifo'

const PENDING = 0
const DONE = 1
const BLOCKED = 2

const COMPACT_AT = 4096

/** One open item: its position and whether it has its outcome. */
interface Slot {
  readonly position: number
  state: number
}

/**
 * The checkpoint's number: the last position up to which every item has its outcome. Items are
 * opened in increasing order and closed in any order (a refusal comes before a delivery); the
 * watermark moves over a run of closed items and stops for good at a blocking one (a message that
 * failed to be delivered, or a refused one under `strict`), so that a resumed import sends it again.
 * {@link Watermark.settled} goes on past a blocking item: what the terminal's issue lines wait for.
 * Memory: one slot per item from the first without an outcome on.
 */
export class Watermark {
  #value: number
  /** The items from the first without an outcome on, in increasing position. */
  readonly #open = new Fifo<Slot>(COMPACT_AT)
  #blocked = false
  #settled: number

  /** @param start - the position before the first item (0, or the checkpoint of a resumed import). */
  constructor(start: number) {
    this.#value = start
    this.#settled = start
  }

  /** The last position up to which every item has its outcome, blocking ones included. */
  get settled(): number {
    return this.#settled
  }

  /** The last position up to which every item has its outcome. */
  get value(): number {
    return this.#value
  }

  /** Whether a blocking item has stopped the watermark. */
  get isBlocked(): boolean {
    return this.#blocked
  }

  /** An item that is waiting for its outcome. */
  open(position: number): void {
    this.#open.push({ position, state: PENDING })
  }

  /** An item whose outcome is known at once (a blank line, a line that is not JSON). */
  pass(position: number, isBlocking = false): void {
    if (this.#open.length === 0 && (!isBlocking || this.#blocked)) {
      if (!this.#blocked) this.#value = position
      this.#settled = position
      return
    }
    this.open(position)
    this.close(position, isBlocking)
  }

  /** An open item has its outcome; a blocking one stops the watermark before it. */
  close(position: number, isBlocking = false): void {
    const index = this.#find(position)
    if (index < 0) return
    ;(this.#open.at(index) as Slot).state = isBlocking ? BLOCKED : DONE
    this.#advance()
  }

  #advance(): void {
    const open = this.#open
    let done = 0
    for (let slot = open.at(0); slot !== undefined && slot.state !== PENDING; slot = open.at(++done)) {
      if (slot.state === BLOCKED) this.#blocked = true
      if (!this.#blocked) this.#value = slot.position
      this.#settled = slot.position
    }
    open.drop(done)
  }

  // Positions are opened in increasing order: a binary search over the open ones.
  #find(position: number): number {
    const open = this.#open
    let low = 0
    let high = open.length - 1
    while (low <= high) {
      const mid = (low + high) >>> 1
      const value = (open.at(mid) as Slot).position
      if (value === position) return mid
      if (value < position) low = mid + 1
      else high = mid - 1
    }
    return -1
  }
}
