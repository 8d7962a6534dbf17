import { DEFAULT_BREAKER } from '../flow-control/breaker'
import type { DeliveryContext, RetryInfo } from '../delivery/deliver'
import { createHttpTransport } from '../platform/transport'
import type { ResolvedOptions } from '../config/options'
import type { AttemptSlots } from './attempt-slots'
import type { AttemptSignal } from '../flow-control/in-flight-limit'
import type { HeldTimers } from './held-timers'
import { OutageBreaker, type OutageHooks } from './outage'
import type { RateGate } from './rate-gate'

/** What the attempt loop is wired to: the scheduler's timers, slots, rate gate and the pump's wake-up. */
export interface DeliveryParts {
  readonly timers: HeldTimers
  readonly slots: () => AttemptSlots
  /** Learns what an attempt to `path` said, for the limit of its lane. */
  readonly laneReport: (path: string, signal: AttemptSignal, startedMs: number) => void
  readonly rate: () => RateGate
  /** Starts what a freed or added slot allows. */
  readonly wake: () => void
  readonly onRetry: (info: RetryInfo) => void
  /** What the outage breaker tells the scheduler. */
  readonly outage: OutageHooks
  /** Whether the client has a spool: what waits during an outage stays on disk (the outage error says so). */
  readonly keepsOnDisk: boolean
}

/**
 * The context of every request of one instance: a transport per host (`host`, then
 * `fallbackHosts`), the retry policy, the outage breaker over the hosts and the scheduler's hooks.
 */
export function createDeliveryContext(o: ResolvedOptions, parts: DeliveryParts): { context: DeliveryContext; outage: OutageBreaker } {
  const now = (): number => Date.now()
  // The write key goes to these hosts only: the user listed each of them.
  const hosts = [o.host, ...o.fallbackHosts].map((host) => ({ host, transport: createHttpTransport({ ...o, host }) }))
  const outage = new OutageBreaker(hosts, DEFAULT_BREAKER, parts.timers, parts.outage, now, Math.random, parts.keepsOnDisk)
  const context: DeliveryContext = {
    transport: hosts[0].transport,
    policy: { maxRetries: o.maxRetries, baseMs: o.retryBaseMs, capMs: o.retryCapMs, maxTotalMs: o.maxRetryTimeMs },
    timeoutMs: o.timeoutMs,
    route: (isProbe) => outage.route(isProbe),
    sleep: (ms, signal, path) => outage.sleep(ms, signal, path),
    attemptEnded: (path, report) => {
      parts.laneReport(path, report.signal, report.startedMs)
      parts.slots().report(report.signal, report.startedMs)
      outage.report(report)
      parts.wake()
    },
    outage: (path) => outage.error(path),
    pauseSlot: () => {
      parts.slots().pauseForRetry()
      parts.wake()
    },
    resumeSlot: (signal) => parts.slots().resumeAfterWait(signal),
    reclaimSlot: () => parts.slots().reclaimAfterFailedWait(),
    lastAcceptedStartMs: (host) => outage.lastAcceptedStartMs(host),
    retryWaitCapMs: (failedHost) => outage.retryWaitCapMs(failedHost),
    rateSlot: (signal) => parts.rate().waitForTurn(signal),
    now,
    random: Math.random,
    onRetry: parts.onRetry,
  }
  return { context, outage }
}
