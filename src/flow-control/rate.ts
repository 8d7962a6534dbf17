import { Fifo } from '../core/fifo'

/**
 * At most `limit` request starts in any window of `windowMs`: a log of the start times still
 * inside the window. Older starts are dropped as time passes, so the log holds at most the
 * requests actually started in one window, whatever `limit` is (an `Infinity` limit keeps none).
 * Pure: the caller passes the time in.
 */
export class RateWindow {
  readonly #limit: number
  readonly #windowMs: number
  /** Start times inside the window, oldest first (at most `limit` of them). */
  readonly #starts = new Fifo<number>(32)

  constructor(limit: number, windowMs = 1000) {
    this.#limit = Math.max(1, Math.floor(limit))
    this.#windowMs = windowMs
  }

  /** Milliseconds until another request may start: 0 when it may start now. */
  waitMs(nowMs: number): number {
    this.#forget(nowMs)
    if (this.size < this.#limit) return 0
    return Math.max(0, (this.#starts.at(0) as number) + this.#windowMs - nowMs)
  }

  /** Records a request start. */
  record(nowMs: number): void {
    if (this.#limit === Infinity) return
    this.#forget(nowMs)
    this.#starts.push(nowMs)
  }

  /** How many start times the log holds: the starts inside the last window. */
  get size(): number {
    return this.#starts.length
  }

  // Drops the starts that left the window.
  #forget(nowMs: number): void {
    const starts = this.#starts
    let gone = 0
    while (gone < starts.length && (starts.at(gone) as number) + this.#windowMs <= nowMs) gone++
    starts.drop(gone)
  }
}
