import type { Timer } from '../timers'
import type { HeldTimers } from './held-timers'

/**
 * `maxRetryTime` for messages that wait in the lanes for a request slot: one timer at a time, at
 * the time budget's end for the oldest message due, armed only when messages are left waiting
 * (never on the way of a message that goes out at once). When it fires, `sweep` fails what waited
 * too long and says when the next oldest was queued, if any waits.
 */
export class LaneExpiry {
  readonly #budgetMs: number
  readonly #timers: HeldTimers
  readonly #sweep: (nowMs: number) => number | undefined
  #timer: Timer | undefined

  /** @param sweep - fails what was queued `budgetMs` ago or earlier; returns when the oldest message still due was queued. */
  constructor(budgetMs: number, timers: HeldTimers, sweep: (nowMs: number) => number | undefined) {
    this.#budgetMs = budgetMs
    this.#timers = timers
    this.#sweep = sweep
  }

  /** Messages are left waiting, the oldest queued at `oldestAt()`: make sure a timer will look at them. */
  watch(oldestAt: () => number): void {
    if (this.#timer !== undefined || this.#budgetMs === Infinity) return
    this.#arm(Math.max(1, oldestAt() + this.#budgetMs - Date.now()))
  }

  #arm(ms: number): void {
    this.#timer = this.#timers.start(() => {
      this.#timers.stop(this.#timer as Timer)
      this.#timer = undefined
      const now = Date.now()
      const oldestAt = this.#sweep(now)
      if (oldestAt !== undefined) this.#arm(Math.max(1, oldestAt + this.#budgetMs - now))
    }, ms)
  }
}
