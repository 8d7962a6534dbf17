import { afterAttempt, startLimit, type AttemptSignal, type InFlightLimit, type LimitPolicy } from '../flow-control/in-flight-limit'

/**
 * How many batch requests may be in flight, on top of the limit over every request: batches carry
 * up to 500 KB each, so they start from a few and grow only while full batches wait and batch
 * requests succeed; batches that are not full keep to a fixed few. A batch request holds its place
 * from its first attempt to its outcome, but for its waits between retries under the adaptive limit.
 */
export class BatchLimit {
  readonly #policy: LimitPolicy
  readonly #maxPartial: number
  #state: InFlightLimit
  #active = 0
  #partial = 0

  constructor(policy: LimitPolicy, maxPartial: number) {
    this.#policy = policy
    this.#maxPartial = maxPartial
    this.#state = startLimit(policy)
  }

  /** Whether a batch may start: a full one (the lane holds more than one request carries) or not. */
  mayStart(isFull: boolean): boolean {
    return this.#active < this.#state.limit && (isFull || this.#partial < this.#maxPartial)
  }

  start(isPartial: boolean): void {
    this.#active += 1
    if (isPartial) this.#partial += 1
  }

  end(isPartial: boolean): void {
    this.#active -= 1
    if (isPartial) this.#partial -= 1
  }

  /**
   * A batch request starts to wait for a retry: under the adaptive limit its place is free
   * meanwhile (it puts no load on the service), so that its retries never hold up other batches.
   */
  lend(isPartial: boolean): void {
    if (!this.#policy.holdsSlotWhileWaiting) this.end(isPartial)
  }

  /** Its wait is over (or failed): it holds its place again at once, over the limit if need be, to give it back as it ends. */
  reclaim(isPartial: boolean): void {
    if (!this.#policy.holdsSlotWhileWaiting) this.start(isPartial)
  }

  /** An attempt of a batch request ended; the limit grows only while a full batch waits. */
  report(signal: AttemptSignal, startedMs: number, nowMs: number, isFullBatchWaiting: boolean): void {
    this.#state = afterAttempt(this.#state, this.#policy, signal, startedMs, nowMs, isFullBatchWaiting)
  }
}
