import { afterAttempt, startLimit, type AttemptSignal, type InFlightLimit, type LimitPolicy } from '../flow-control/in-flight-limit'

/**
 * The in-flight slots of one instance, counted against the limit of {@link afterAttempt}: a request
 * takes a slot to start and gives it back when it ends; every attempt reports what it learned about
 * the service. Under the adaptive limit a request lends its slot out while it waits to be retried,
 * and takes one again (before any new request starts: it holds older messages) when the wait ends.
 */
export class AttemptSlots {
  readonly #policy: LimitPolicy
  readonly #now: () => number
  readonly #isWorkWaiting: () => boolean
  readonly #waiters: Array<() => void> = []
  #state: InFlightLimit
  #active = 0

  /** @param isWorkWaiting - whether messages are due but not yet in a request: the limit grows only then. */
  constructor(policy: LimitPolicy, now: () => number, isWorkWaiting: () => boolean) {
    this.#policy = policy
    this.#now = now
    this.#isWorkWaiting = isWorkWaiting
    this.#state = startLimit(policy)
  }

  /** How many slots may be taken now. */
  get limit(): number {
    return this.#state.limit
  }

  /** Slots taken. */
  get active(): number {
    return this.#active
  }

  /** Whether a new request may take a slot now: one is free and no retry waits for one. */
  get isFree(): boolean {
    return this.#waiters.length === 0 && this.#active < this.#state.limit
  }

  /** Takes a slot for a new request; the caller has checked {@link isFree}. */
  take(): void {
    this.#active += 1
  }

  /** Gives back the slot of a request that ended. */
  release(): void {
    this.#active -= 1
    this.#grant()
  }

  /** An attempt that started at `startedMs` ended with `signal`: the limit follows. */
  report(signal: AttemptSignal, startedMs: number): void {
    const isWorkWaiting = this.#waiters.length > 0 || this.#isWorkWaiting()
    this.#state = afterAttempt(this.#state, this.#policy, signal, startedMs, this.#now(), isWorkWaiting)
    this.#grant()
  }

  /** A request starts to wait for a retry: under the adaptive limit its slot is free meanwhile. */
  pauseForRetry(): void {
    if (!this.#policy.holdsSlotWhileWaiting) this.release()
  }

  /** A request's wait failed and it ends: it holds its slot again at once, to give it back with {@link release}. */
  reclaimAfterFailedWait(): void {
    if (!this.#policy.holdsSlotWhileWaiting) this.#active += 1
  }

  /** The wait is over: resolves when the request holds a slot again; rejects when `signal` aborts first. */
  resumeAfterWait(signal: AbortSignal): Promise<void> {
    if (this.#policy.holdsSlotWhileWaiting) return Promise.resolve()
    if (signal.aborted) return Promise.reject(signal.reason as Error)
    if (this.#active < this.#state.limit && this.#waiters.length === 0) {
      this.#active += 1
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(grant)
        if (index !== -1) this.#waiters.splice(index, 1)
        reject(signal.reason as Error)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.#waiters.push(grant)
    })
  }

  #grant(): void {
    while (this.#waiters.length > 0 && this.#active < this.#state.limit) {
      this.#active += 1
      ;(this.#waiters.shift() as () => void)()
    }
  }
}
