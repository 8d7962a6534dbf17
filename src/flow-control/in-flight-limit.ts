/**
 * How many requests may be in flight, as a value: a pure AIMD policy that the scheduler feeds with
 * what the service does. No timers and no sockets: the caller passes the clock in.
 *
 * - Slow start, then additive increase, up to `ceiling`, for each request that succeeds while work
 *   is waiting for a slot. Until the first overload signal: +1 per success, so a healthy service
 *   that work queues for sees the limit double each round trip. After a quick decrease (most
 *   answers were overload signals: the service refuses what is beyond its capacity), congestion
 *   avoidance: +1 per `limit` such successes (at least {@link MIN_GROWTH_WINDOW}), about one per
 *   window, so the limit creeps up to what the service takes instead of overshooting it by a whole
 *   window each round trip (TCP's rule; +1 per success took a service that serves 2 at a time to 8
 *   and 3 attempts per message). Each such step is a probe: the overload count starts again. A
 *   decrease for a minority of failures (a flaky service) keeps slow start: there the limit is not
 *   what fails, and growing back one per window left requests queued behind hung ones (the
 *   bench's faults row took 42 s instead of 15 s). Growth
 *   only while the round trip has not grown: a success slower than `latencyTolerance` times the
 *   base round trip (the lowest seen, drifting up slowly) says the service or the way to it is
 *   already busy, and more requests in flight would only queue there (a latency-gradient guard).
 * - Multiplicative decrease: halve, down to `floor`, on an overload signal (429, 5xx, a reset, a
 *   timeout). One decrease per episode: a signal from an attempt that started before the last
 *   decrease says nothing about the new limit (TCP's rule), and no two decreases come closer than
 *   `decreaseIntervalMs`, so a flaky minority of answers cannot drive the limit to the floor while
 *   most requests succeed; a service that keeps failing reaches the floor in log2(ceiling) steps.
 *   Unless most answers since the last change are overload signals (at least
 *   {@link QUICK_DECREASE_SIGNALS}, more than the successes): then the limit halves at once, so that it
 *   converges to what a service that serves few requests at a time takes (an increase of one per
 *   success would outrun one halving a second).
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
  /** Grow only after a success no slower than this many times the base round trip (Infinity: always). */
  readonly latencyTolerance: number
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

/** Overload signals since the last decrease that, outnumbering the successes, halve the limit at once. */
export const QUICK_DECREASE_SIGNALS = 4

/** The state of the limit: its value, when it last shrank, and the base round trip. */
export interface InFlightLimit {
  readonly limit: number
  /** When the limit last shrank (ms on the caller's clock), or -Infinity. */
  readonly decreasedAtMs: number
  /** Overload signals (of attempts started after the last decrease) since the last decrease or probe. */
  readonly overloads: number
  /** Successes since the last decrease or probe. */
  readonly successes: number
  /** The lowest round trip of a success seen, drifting up 1/64 of the way to each slower one; Infinity before any. */
  readonly baseRttMs: number
  /** Whether a quick decrease has shrunk the limit (most answers were overload signals): growth is then additive (one per window), not slow start. */
  readonly isAvoiding: boolean
  /** Successes that could grow the limit since it last grew or shrank (in congestion avoidance, `limit` of them grow it by one). */
  readonly credit: number
}

/**
 * Fewest successes per step up in congestion avoidance. A step past what the service takes costs
 * at least {@link QUICK_DECREASE_SIGNALS} refused attempts before the limit halves (refusals come back
 * at once, and each frees its slot for the next one); at a limit of 1 or 2 a window is too few
 * successes to pay for that: a service that serves 2 at a time took 2.1 attempts per message with
 * one step per `limit` successes, 1.55 with at least 4.
 */
export const MIN_GROWTH_WINDOW = 4

// Below this, a round trip is a loopback answer's noise, not a measure of how busy the service is.
const MIN_BASE_RTT_MS = 5

/** What one attempt told about the service. */
export type AttemptSignal = 'success' | 'overload' | 'neutral'

/** The limit a new client starts with. */
export function startLimit(policy: LimitPolicy): InFlightLimit {
  return {
    limit: Math.min(policy.ceiling, Math.max(policy.floor, policy.initial)),
    decreasedAtMs: -Infinity,
    overloads: 0,
    successes: 0,
    baseRttMs: Infinity,
    isAvoiding: false,
    credit: 0,
  }
}

/**
 * After a request the service accepted in `rttMs`, when work was waiting for a slot and the round
 * trip has not grown: one more slot (slow start), or a step towards one (congestion avoidance).
 */
export function afterSuccess(state: InFlightLimit, policy: LimitPolicy, isWorkWaiting: boolean, rttMs = 0): InFlightLimit {
  const base = state.baseRttMs
  const baseRttMs = rttMs <= base ? rttMs : base + (rttMs - base) / 64
  const counts = isWorkWaiting && state.limit < policy.ceiling && rttMs <= Math.max(MIN_BASE_RTT_MS, baseRttMs) * policy.latencyTolerance
  const credit = counts ? state.credit + 1 : state.credit
  const grows = counts && (!state.isAvoiding || credit >= Math.max(MIN_GROWTH_WINDOW, state.limit))
  // A step up in congestion avoidance probes the service: the answers to count against it start now.
  const probes = grows && state.isAvoiding
  return {
    limit: grows ? state.limit + 1 : state.limit,
    decreasedAtMs: state.decreasedAtMs,
    overloads: probes ? 0 : state.overloads,
    successes: probes ? 0 : state.successes + 1,
    baseRttMs,
    isAvoiding: state.isAvoiding,
    credit: grows ? 0 : credit,
  }
}

/** After an overload signal from an attempt that started at `startedMs`: half the slots, once per episode. */
export function afterOverload(state: InFlightLimit, policy: LimitPolicy, startedMs: number, nowMs: number): InFlightLimit {
  if (startedMs < state.decreasedAtMs) return state
  const overloads = state.overloads + 1
  const isMostlyOverload = overloads >= QUICK_DECREASE_SIGNALS && overloads > state.successes
  if (nowMs - state.decreasedAtMs < policy.decreaseIntervalMs && !isMostlyOverload) return { ...state, overloads }
  return {
    limit: Math.max(policy.floor, Math.floor(state.limit / 2)),
    decreasedAtMs: nowMs,
    overloads: 0,
    successes: 0,
    baseRttMs: state.baseRttMs,
    isAvoiding: state.isAvoiding || isMostlyOverload,
    credit: 0,
  }
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
  if (signal === 'success') return afterSuccess(state, policy, isWorkWaiting, nowMs - startedMs)
  if (signal === 'overload') return afterOverload(state, policy, startedMs, nowMs)
  return state
}

/** Limits pinned at `n` requests of any kind (an explicit `maxInFlight`). */
export function fixedInFlight(n: number): InFlightPolicy {
  const pinned: LimitPolicy = {
    floor: n,
    ceiling: n,
    initial: n,
    decreaseIntervalMs: 0,
    holdsSlotWhileWaiting: true,
    latencyTolerance: Infinity,
  }
  return { requests: pinned, batches: pinned, partialBatches: n }
}
