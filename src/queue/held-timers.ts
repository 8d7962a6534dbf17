import { setUnrefTimeout, type Timer } from '../platform/timers'

/**
 * The timers of pending work (rate-limit waits, retry backoffs, the close timeout): unref'd, so an
 * idle client never holds a process open, and ref'd while something waits on them (a `flush()`,
 * `closeAndFlush()` or the drain before exit), so the process stays up until they fire.
 */
export class HeldTimers {
  readonly #report: (err: unknown) => void
  #holds = 0
  #timers: Set<Timer> | undefined

  /** @param report - where a timer's callback that throws is reported (the client's ledger). */
  constructor(report: (err: unknown) => void) {
    this.#report = report
  }

  /** Starts a timer, ref'd when work is held. */
  start(fn: () => void, ms: number): Timer {
    const timer = setUnrefTimeout(fn, ms, this.#report)
    if (this.#holds > 0) timer.ref()
    ;(this.#timers ??= new Set()).add(timer)
    return timer
  }

  stop(timer: Timer): void {
    timer.cancel()
    this.#timers?.delete(timer)
  }

  /** One more (1) or one fewer (-1) waiter that needs the timers to hold the process. */
  hold(delta: 1 | -1): void {
    const before = this.#holds
    this.#holds += delta
    if (before === 0 && this.#holds === 1) this.#timers?.forEach((t) => t.ref())
    else if (before === 1 && this.#holds === 0) this.#timers?.forEach((t) => t.unref())
  }

  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.stop(timer)
        reject(signal.reason as Error)
      }
      const timer = this.start(() => {
        this.stop(timer)
        signal.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }
}
