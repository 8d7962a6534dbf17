import { MAX_TIMER_MS } from '../core/limits'
import { setTimerRef } from './runtime'

/** A timer that can be made to hold the process open or not, and cancelled. */
export interface Timer {
  ref(): void
  unref(): void
  cancel(): void
}

/**
 * Starts a timeout that does not keep the process alive. Timers are unref'd so that an idle
 * client never holds a process open; callers that must hold it (a pending flush) call `ref()`.
 * Where timers cannot be unref'd (Workers, the Edge Runtime: a timer is a number there), or
 * `unref()` throws, the timer is still returned, so that its owner can always cancel it.
 * With `report`, what `fn` throws goes there (its owner's ledger: `error` listeners and
 * `errorHandler`) instead of becoming an uncaught exception of the host.
 */
export function setUnrefTimeout(fn: () => void, ms: number, report?: (err: unknown) => void): Timer {
  const run =
    report === undefined
      ? fn
      : (): void => {
          try {
            fn()
          } catch (err) {
            report(err)
          }
        }
  const handle: unknown = setTimeout(run, clampDelay(ms))
  setTimerRef(handle, false)
  return {
    ref: () => setTimerRef(handle, true),
    unref: () => setTimerRef(handle, false),
    cancel: () => clearTimeout(handle as ReturnType<typeof setTimeout>),
  }
}

/** Clamps a delay into what setTimeout honours: 0 to 2^31-1 ms. */
export function clampDelay(ms: number): number {
  if (!(ms > 0)) return 0
  return ms > MAX_TIMER_MS ? MAX_TIMER_MS : Math.ceil(ms)
}
