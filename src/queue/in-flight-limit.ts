/**
 * How many requests may be in flight, as a value: a pure AIMD policy that the scheduler feeds with
 * what the service does. No timers and no sockets: the caller passes the clock in.
 *
 * - Additive increase: +1 for every request that succeeds while work is waiting for a slot, up to
 *   `ceiling`. Every request of a round trip can succeed, so a healthy service that work queues
 *   for sees the limit double each round trip (slow start), and never past the ceiling.
 * - Multiplicative decrease: halve, down to `floor`, on an overload signal (429, 5xx, a reset, a
 *   timeout). One decrease per episode: a signal from an attempt that started before the last
 *   decrease says nothing about the new limit (TCP's rule), and no two decreases come closer than
 *   `decreaseIntervalMs`, so a flaky minority of answers cannot drive the limit to the floor while
 *   most requests succeed; a service that keeps failing reaches the floor in log2(ceiling) steps.
 */
export interface LimitPolicy {
  /** Fewest requests in flight the limit shrinks to (at least 1). */
  readonly floor: number
  /** Most requests in flight the limit grows to. */
  readonly ceiling: number
  /** The limit of a new client, between floor and ceiling. */
  readonly initial: number
  /** Shortest time between two decreases, ms. */
  readonly decreaseIntervalMs: number
  /**
   * Whether a request keeps its slot while it waits to be retried. A fixed limit counts requests
   * from first attempt to outcome, so `maxInFlight: 1` delivers strictly in order; the adaptive
   * limit counts attempts, since a request waiting between attempts puts no load on the service.
   */
  readonly holdsSlotWhileWaiting: boolean
}

/**
 * The limits of one instance: one over every request, one over batch requests (which carry up to
 * 500 KB each, so they start lower and grow only while full batches wait), and a fixed cap on
 * batches that are not full (the batch lane held less than 500 KB): under sustained traffic a
 * batch then waits to grow instead of leaving small as soon as a slot is free.
 */
export interface InFlightPolicy {
  readonly requests: LimitPolicy
  readonly batches: LimitPolicy
  readonly partialBatches: number
}

/** The state of the limit: its value and when it last shrank. */
export interface InFlightLimit {
  readonly limit: number
  /** When the limit last shrank (ms on the caller's clock), or -Infinity. */
  readonly decreasedAtMs: number
}

/** What one attempt told about the service. */
export type AttemptSignal = 'success' | 'overload' | 'neutral'

/** The limit a new client starts with. */
export function startLimit(policy: LimitPolicy): InFlightLimit {
  return { limit: Math.min(policy.ceiling, Math.max(policy.floor, policy.initial)), decreasedAtMs: -Infinity }
}

/** After a request the service accepted: one more slot when work was waiting for one. */
export function afterSuccess(state: InFlightLimit, policy: LimitPolicy, isWorkWaiting: boolean): InFlightLimit {
  if (!isWorkWaiting || state.limit >= policy.ceiling) return state
  return { limit: state.limit + 1, decreasedAtMs: state.decreasedAtMs }
}

/** After an overload signal from an attempt that started at `startedMs`: half the slots, once per episode. */
export function afterOverload(state: InFlightLimit, policy: LimitPolicy, startedMs: number, nowMs: number): InFlightLimit {
  if (startedMs < state.decreasedAtMs || nowMs - state.decreasedAtMs < policy.decreaseIntervalMs) return state
  return { limit: Math.max(policy.floor, Math.floor(state.limit / 2)), decreasedAtMs: nowMs }
}

/** The next state after an attempt ended with `signal`. */
export function afterAttempt(
  state: InFlightLimit,
  policy: LimitPolicy,
  signal: AttemptSignal,
  startedMs: number,
  nowMs: number,
  isWorkWaiting: boolean,
): InFlightLimit {
  if (signal === 'success') return afterSuccess(state, policy, isWorkWaiting)
  if (signal === 'overload') return afterOverload(state, policy, startedMs, nowMs)
  return state
}

/** Limits pinned at `n` requests of any kind (an explicit `maxInFlight`). */
export function fixedInFlight(n: number): InFlightPolicy {
  const pinned: LimitPolicy = { floor: n, ceiling: n, initial: n, decreaseIntervalMs: 0, holdsSlotWhileWaiting: true }
  return { requests: pinned, batches: pinned, partialBatches: n }
}
