/**
 * The outage breaker, as a value: a pure policy that tells a service that is down from one that is
 * merely flaky. The scheduler feeds it what every attempt said and the clock; it touches no timer.
 *
 * - **Closed** (the service answers): attempts that fail count in a run; any answer that shows the
 *   service alive (a 2xx, a 4xx, a 3xx) ends the run. The breaker opens when the run holds
 *   `failuresToOpen` failed attempts spanning at least `minRunMs` (a busy client sees that many
 *   failures in a row within a second only when nothing gets through), or `timeoutsToOpen`
 *   timeouts with no answer in between (a host that accepts and never answers). "Down" must mean
 *   down: a run is evidence only where attempts looked, so an attempt that starts more than
 *   `maxGapMs` after the run's last failure starts a new run (the service may have been up in
 *   between, unseen), and while a run builds a retry waits at most `runRetryWaitMs`, so that a
 *   client with a single request keeps looking instead of waiting through an up phase.
 * - **Open**: no request starts but one probe at a time, at growing intervals (`probeBaseMs`
 *   doubling up to `probeCapMs`, with jitter so that many instances do not probe together). A
 *   success, of the probe or of an attempt that was already in flight, closes it.
 */
export interface BreakerPolicy {
  /** Failed attempts in a row, client-wide, that open the breaker once they span `minRunMs`. */
  readonly failuresToOpen: number
  /** Shortest time from the first failure of the run to the one that opens the breaker, ms. */
  readonly minRunMs: number
  /** Timeouts with no answer in between that open the breaker whatever the time. */
  readonly timeoutsToOpen: number
  /** Wait before the first probe, ms; it doubles after every failed probe. */
  readonly probeBaseMs: number
  /** Longest wait between two probes, ms. */
  readonly probeCapMs: number
  /** Longest time from a failure of the run to the start of the next failed attempt for the run to go on, ms. */
  readonly maxGapMs: number
  /** Longest wait before a retry while a run builds (the breaker is closed and failures have no answer between them), ms. */
  readonly runRetryWaitMs: number
}

/** The policy eventrail uses (chosen by measurement: docs/decisions.md, "The outage breaker"). */
export const DEFAULT_BREAKER: BreakerPolicy = Object.freeze({
  failuresToOpen: 8,
  minRunMs: 1000,
  timeoutsToOpen: 2,
  probeBaseMs: 1000,
  probeCapMs: 30_000,
  maxGapMs: 500,
  runRetryWaitMs: 400,
})

/** What one attempt said about the service, for the breaker. */
export type AttemptVerdict = 'alive' | 'failed' | 'timeout'

/** The breaker's state. */
export interface BreakerState {
  readonly isOpen: boolean
  /** Failed attempts in the current run (closed), or failed probes since it opened (open). */
  readonly failures: number
  /** When the run's first failure ended, ms; or when the breaker opened. */
  readonly sinceMs: number
  /** Timeouts in the current run. */
  readonly timeouts: number
  /** When the run's last failure ended, ms: an attempt that starts more than `maxGapMs` later starts a new run. */
  readonly lastFailureMs: number
  /** When the last timeout counted ended, ms: a timeout of an attempt started before it does not count again. */
  readonly lastTimeoutMs: number
  /** When the service last answered, ms: a timeout of an attempt started before that is bad luck, not an outage. */
  readonly lastAliveMs: number
  /** When the next probe may start, ms (open only). */
  readonly nextProbeMs: number
}

/** A closed breaker with no failure seen. */
export const CLOSED: BreakerState = Object.freeze({
  isOpen: false,
  failures: 0,
  sinceMs: 0,
  timeouts: 0,
  lastFailureMs: -Infinity,
  lastTimeoutMs: -Infinity,
  lastAliveMs: -Infinity,
  nextProbeMs: 0,
})

/** The wait before probe number `failedProbes + 1`: `probeBaseMs × 2^failedProbes`, capped, less up to 20 % jitter. */
export function probeDelayMs(failedProbes: number, policy: BreakerPolicy, random: () => number): number {
  const full = Math.min(policy.probeCapMs, policy.probeBaseMs * 2 ** Math.min(failedProbes, 30))
  return Math.round(full * (0.8 + 0.2 * random()))
}

/**
 * The next state after an attempt that started at `startedMs` and ended at `nowMs` with `verdict`.
 * A failure counts only when its attempt started after the service last answered (one that hung
 * or failed while others got answers met bad luck), and timeouts count in a row only when each
 * attempt started after the last one counted had timed out (requests that hung together are one
 * piece of evidence, not several). While open, only an
 * answer counts (it closes the breaker): a failure there is a failed probe
 * ({@link afterProbeFailed}) or an attempt that was in flight when it opened, which says nothing new.
 */
export function afterVerdict(
  state: BreakerState,
  policy: BreakerPolicy,
  verdict: AttemptVerdict,
  startedMs: number,
  nowMs: number,
  random: () => number,
): BreakerState {
  if (verdict === 'alive') return { ...CLOSED, lastAliveMs: nowMs }
  if (state.isOpen) return state
  // An attempt that started before the service last answered met bad luck, not an outage: the
  // service answered after it started (a request that hung while others got through).
  if (startedMs < state.lastAliveMs) return state
  // Nobody looked at the service between the run's last failure and this attempt: what the run
  // saw before the gap is not evidence of now (a flapping service is up in such gaps).
  const run = state.failures > 0 && startedMs - state.lastFailureMs > policy.maxGapMs ? { ...state, failures: 0, timeouts: 0 } : state
  const failures = run.failures + 1
  const sinceMs = run.failures === 0 ? nowMs : run.sinceMs
  const isNewTimeout = verdict === 'timeout' && startedMs >= run.lastTimeoutMs
  const timeouts = run.timeouts + (isNewTimeout ? 1 : 0)
  const lastTimeoutMs = isNewTimeout ? nowMs : run.lastTimeoutMs
  const lastFailureMs = Math.max(run.lastFailureMs, nowMs)
  const opens = timeouts >= policy.timeoutsToOpen || (failures >= policy.failuresToOpen && nowMs - sinceMs >= policy.minRunMs)
  if (!opens) return { ...run, failures, sinceMs, timeouts, lastTimeoutMs, lastFailureMs }
  return { ...CLOSED, isOpen: true, sinceMs: nowMs, nextProbeMs: nowMs + probeDelayMs(0, policy, random) }
}

/** The next state after a probe that failed at `nowMs`: the next one waits twice as long, up to the cap. */
export function afterProbeFailed(state: BreakerState, policy: BreakerPolicy, nowMs: number, random: () => number): BreakerState {
  const failures = state.failures + 1
  return { ...state, failures, nextProbeMs: nowMs + probeDelayMs(failures, policy, random) }
}

/**
 * When a probe may start: at `nextProbeMs`, or sooner while someone awaits a flush, but never
 * within `probeBaseMs` of the last probe (or of the opening): an awaited `flush()` settles within
 * about a second, and a dead service still gets at most one probe a second.
 */
export function probeDueMs(state: BreakerState, policy: BreakerPolicy, lastProbeMs: number, isFlushAwaited: boolean): number {
  return isFlushAwaited ? Math.min(state.nextProbeMs, lastProbeMs + policy.probeBaseMs) : state.nextProbeMs
}

/**
 * The longest a retry may wait now: `runRetryWaitMs` while a run builds (closed, with failures and
 * no answer since), so that the run is measured by attempts that keep looking; else no limit. A
 * wait the service asked for (`Retry-After`) is not shortened by this.
 */
export function retryWaitCapMs(state: BreakerState, policy: BreakerPolicy): number {
  return !state.isOpen && state.failures > 0 ? policy.runRetryWaitMs : Infinity
}

/**
 * A request's whole retry budget (`maxRetryTime`) passed without the service taking it, while its
 * answers (a 429 is one) kept the breaker closed. With a spool the request waits on disk for the
 * service instead of failing; the breaker opens, so that awaited flushes settle with `{ waiting }`
 * and the service gets probes, not a request sent again and again.
 */
export function afterGivingUp(state: BreakerState, policy: BreakerPolicy, nowMs: number, random: () => number): BreakerState {
  if (state.isOpen) return state
  return { ...CLOSED, isOpen: true, sinceMs: nowMs, nextProbeMs: nowMs + probeDelayMs(0, policy, random) }
}
