import type { Timer } from '../platform/timers'
import type { HeldTimers } from './held-timers'
import { RateWindow } from '../flow-control/rate'

/**
 * `maxRequestsPerSecond` over every attempt of an instance, first attempts and retries alike. A
 * new request that may not start yet leaves its messages queued (they go out together, in a bigger
 * batch, when the gate opens); a retry waits for its turn.
 */
export class RateGate {
  readonly #limit: number
  readonly #timers: HeldTimers
  readonly #onOpen: () => void
  #window: RateWindow | undefined
  #timer: Timer | undefined

  /** @param onOpen - called once the gate opens again after {@link tryStart} said no. */
  constructor(limit: number, timers: HeldTimers, onOpen: () => void) {
    this.#limit = limit
    this.#timers = timers
    this.#onOpen = onOpen
  }

  /** Records a request start and returns true when one may start now; else arms `onOpen` and returns false. */
  tryStart(): boolean {
    const window = (this.#window ??= new RateWindow(this.#limit))
    const now = Date.now()
    const waitMs = window.waitMs(now)
    if (waitMs === 0) {
      window.record(now)
      return true
    }
    this.#timer ??= this.#timers.start(() => {
      this.#timers.stop(this.#timer as Timer)
      this.#timer = undefined
      this.#onOpen()
    }, waitMs)
    return false
  }

  /** Resolves, with the start recorded, when a retry may start; rejects when `signal` aborts first. */
  async waitForTurn(signal: AbortSignal): Promise<void> {
    const window = (this.#window ??= new RateWindow(this.#limit))
    for (let waitMs = window.waitMs(Date.now()); waitMs > 0; waitMs = window.waitMs(Date.now())) {
      await this.#timers.sleep(waitMs, signal)
    }
    window.record(Date.now())
  }
}
