import type { DeliveryContext, RetryInfo } from '../delivery/deliver'
import { createHttpTransport } from '../delivery/transport'
import type { ResolvedOptions } from '../options'
import type { AttemptSlots } from './attempt-slots'
import type { AttemptSignal } from './in-flight-limit'
import type { HeldTimers } from './held-timers'
import type { RateGate } from './rate-gate'

/** What the attempt loop is wired to: the scheduler's timers, slots, rate gate and pump. */
export interface DeliveryParts {
  readonly timers: HeldTimers
  readonly slots: () => AttemptSlots
  /** Learns what an attempt to `path` said, for the limit of its lane. */
  readonly laneReport: (path: string, signal: AttemptSignal, startedMs: number) => void
  readonly rate: () => RateGate
  /** Starts what a freed or added slot allows. */
  readonly pump: () => void
  readonly onRetry: (info: RetryInfo) => void
}

/** The context of every request of one instance: one transport, the retry policy and the scheduler's hooks. */
export function createDeliveryContext(o: ResolvedOptions, parts: DeliveryParts): DeliveryContext {
  return {
    transport: createHttpTransport(o),
    policy: { maxRetries: o.maxRetries, baseMs: o.retryBaseMs, capMs: o.retryCapMs, maxTotalMs: o.maxRetryTimeMs },
    timeoutMs: o.timeoutMs,
    sleep: (ms, signal) => parts.timers.sleep(ms, signal),
    attemptEnded: (path, signal, startedMs) => {
      parts.laneReport(path, signal, startedMs)
      parts.slots().report(signal, startedMs)
      parts.pump()
    },
    pauseSlot: () => {
      parts.slots().pauseForRetry()
      parts.pump()
    },
    resumeSlot: (signal) => parts.slots().resumeAfterWait(signal),
    rateSlot: (signal) => parts.rate().waitForTurn(signal),
    now: () => Date.now(),
    random: Math.random,
    onRetry: parts.onRetry,
  }
}
