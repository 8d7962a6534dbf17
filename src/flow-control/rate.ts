/**
 * At most `limit` request starts in any window of `windowMs`: a log of the start times still
 * inside the window. Older starts are dropped as time passes, so the log holds at most the
 * requests actually started in one window, whatever `limit` is (an `Infinity` limit keeps none).
 * Pure: the caller passes the time in.
 */
export class RateWindow {
  readonly #limit: number
  readonly #windowMs: number
  #starts: number[] = []
  #head = 0

  constructor(limit: number, windowMs = 1000) {
    this.#limit = Math.max(1, Math.floor(limit))
    this.#windowMs = windowMs
  }

  /** Milliseconds until another request may start: 0 when it may start now. */
  waitMs(nowMs: number): number {
    this.#forget(nowMs)
    if (this.size < this.#limit) return 0
    return Math.max(0, this.#starts[this.#head] + this.#windowMs - nowMs)
  }

  /** Records a request start. */
  record(nowMs: number): void {
    if (this.#limit === Infinity) return
    this.#forget(nowMs)
    this.#starts.push(nowMs)
  }

  /** How many start times the log holds: the starts inside the last window. */
  get size(): number {
    return this.#starts.length - this.#head
  }

  // Drops the starts that left the window; compacts the array once half of it is dropped ones.
  #forget(nowMs: number): void {
    const starts = this.#starts
    while (this.#head < starts.length && starts[this.#head] + this.#windowMs <= nowMs) this.#head++
    if (this.#head > 32 && this.#head * 2 > starts.length) {
      this.#starts = starts.slice(this.#head)
      this.#head = 0
    }
  }
}
