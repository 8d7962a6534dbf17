import { DeliveryError } from '../core/errors'
import type { Timer } from '../platform/timers'
import type { HeldTimers } from './held-timers'
import type { Lanes } from './lanes'
import type { QueuedEntry } from './queue'

/**
 * `maxRetryTime` for messages that wait in the lanes for a request slot: one timer at a time, at
 * the end of the time budget of the oldest message due, armed only when due messages are left
 * waiting (never on the way of a message that goes out at once). When it fires, what was due and
 * queued `budgetMs` ago or earlier fails, unsent; the timer is armed again for the next oldest.
 */
export class LaneExpiry {
  readonly #budgetMs: number
  readonly #timers: HeldTimers
  readonly #lanes: Lanes
  readonly #dueSeq: () => number
  readonly #fail: (entries: QueuedEntry[], error: DeliveryError) => void
  #timer: Timer | undefined

  /**
   * @param dueSeq - messages queued up to this order number are due (the rest wait for a flush rule, not a slot).
   * @param fail - gives the expired messages their outcome.
   */
  constructor(
    budgetMs: number,
    timers: HeldTimers,
    lanes: Lanes,
    dueSeq: () => number,
    fail: (entries: QueuedEntry[], error: DeliveryError) => void,
  ) {
    this.#budgetMs = budgetMs
    this.#timers = timers
    this.#lanes = lanes
    this.#dueSeq = dueSeq
    this.#fail = fail
  }

  /** Due messages are left waiting: make sure a timer will look at them. */
  watch(): void {
    if (this.#timer !== undefined || this.#budgetMs === Infinity) return
    this.#arm(this.#lanes.firstAt + this.#budgetMs - Date.now())
  }

  /** Cancels the timer, if one is armed. */
  stop(): void {
    if (this.#timer === undefined) return
    this.#timers.stop(this.#timer)
    this.#timer = undefined
  }

  #arm(ms: number): void {
    this.#timer = this.#timers.start(
      () => {
        this.#timers.stop(this.#timer as Timer)
        this.#timer = undefined
        this.#sweep(Date.now())
      },
      Math.max(1, ms),
    )
  }

  #sweep(nowMs: number): void {
    const expired = this.#lanes.takeExpired(this.#dueSeq(), nowMs - this.#budgetMs)
    if (expired.length > 0) this.#fail(expired, expiredError(this.#budgetMs, expired.length))
    const lanes = this.#lanes
    if (lanes.length > 0 && lanes.firstSeq <= this.#dueSeq()) this.#arm(lanes.firstAt + this.#budgetMs - nowMs)
  }
}

function expiredError(budgetMs: number, count: number): DeliveryError {
  const what =
    count === 1
      ? 'the message waited for a free request slot that long and was'
      : `${count} messages waited for a free request slot that long and were`
  return new DeliveryError(`no outcome within maxRetryTime (${budgetMs} ms from the call): ${what} not sent`, undefined, 1, {
    reason: 'expired',
  })
}
