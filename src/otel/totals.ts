import type { AnalyticsStats } from '../client/observe'
import { NO_COUNTS, type CounterTotals } from './retained'

/** One observation: a value and its `error.type` (absent for the good outcome). */
export interface Point {
  readonly value: number
  readonly errorType?: string
}

/** What the bridge reports for one client, or for several summed: every instrument's points. */
export interface HealthPoints {
  readonly queueSize: number
  readonly queueCapacity: number
  readonly processed: readonly Point[]
  readonly inflightMessages: number
  readonly exported: readonly Point[]
  readonly retries: readonly Point[]
  readonly requestsInFlight: number
  readonly requestLimit: number
}

/**
 * The health of one or more clients from their `stats()`, summed: messages are counted once,
 * whatever instance took them. `retained` (the counts of clients that are gone) is added to the
 * counters, never to the gauges. Pure.
 */
export function healthPoints(stats: readonly AnalyticsStats[], retained: CounterTotals = NO_COUNTS): HealthPoints {
  const processed = new Map<string | undefined, number>()
  const exported = new Map<string | undefined, number>()
  const retries = new Map<string | undefined, number>()
  let queueSize = 0
  let queueCapacity = 0
  let inflightMessages = 0
  let requestsInFlight = 0
  let requestLimit = 0
  for (const s of stats) {
    queueSize += s.queued + s.inFlight
    queueCapacity += s.queueCapacity
    inflightMessages += s.inFlight
    requestsInFlight += s.requestsInFlight
    requestLimit += s.inFlightLimit
  }
  for (const s of [retained, ...stats]) {
    add(processed, undefined, s.accepted)
    add(processed, 'filtered', s.filtered)
    for (const [reason, n] of Object.entries(s.refusedBy)) add(processed, reason, n)
    add(exported, undefined, s.sent)
    for (const [reason, n] of Object.entries(s.failedBy)) add(exported, reason, n)
    for (const [reason, n] of Object.entries(s.retriedBy)) add(retries, reason, n)
  }
  return {
    queueSize,
    queueCapacity,
    processed: points(processed),
    inflightMessages,
    exported: points(exported),
    retries: points(retries),
    requestsInFlight,
    requestLimit,
  }
}

function add(counts: Map<string | undefined, number>, key: string | undefined, n: number): void {
  if (n > 0 || key === undefined) counts.set(key, (counts.get(key) ?? 0) + n)
}

function points(counts: Map<string | undefined, number>): Point[] {
  return [...counts].map(([errorType, value]) => (errorType === undefined ? { value } : { value, errorType }))
}
