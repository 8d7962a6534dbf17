/**
 * At most `limit` request starts in any window of `windowMs`: a sliding log of the last `limit`
 * start times. The log grows only as requests are made, so an instance that sends little holds
 * little. Pure: the caller passes the time in.
 */
export class RateWindow {
  readonly #limit: number
  readonly #windowMs: number
  #starts: number[] = []
  #next = 0

  constructor(limit: number, windowMs = 1000) {
    this.#limit = Math.max(1, Math.floor(limit))
    this.#windowMs = windowMs
  }

  /** Milliseconds until another request may start: 0 when it may start now. */
  waitMs(nowMs: number): number {
    if (this.#starts.length < this.#limit) return 0
    const oldest = this.#starts[this.#next]
    return Math.max(0, oldest + this.#windowMs - nowMs)
  }

  /** Records a request start. */
  record(nowMs: number): void {
    if (this.#starts.length < this.#limit) {
      this.#starts.push(nowMs)
      return
    }
    this.#starts[this.#next] = nowMs
    this.#next = (this.#next + 1) % this.#limit
  }
}
