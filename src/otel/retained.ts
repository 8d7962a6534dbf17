import type { AnalyticsStats } from '../client/observe'

/** The monotonic counts of one client, or of several summed: what the bridge's counters report. */
export type CounterTotals = Pick<AnalyticsStats, 'accepted' | 'filtered' | 'refusedBy' | 'sent' | 'failedBy' | 'retriedBy'>

/** Counts of nothing. */
export const NO_COUNTS: CounterTotals = Object.freeze({ accepted: 0, filtered: 0, refusedBy: {}, sent: 0, failedBy: {}, retriedBy: {} })

/**
 * What clients that are gone counted, kept so that a summed counter never goes back: a tenant
 * that leaves (closed, dropped from the list, garbage-collected) takes its counts out of the sum,
 * and a monotonic counter that decreases reads as a reset to every backend (`rate()` jumps, a
 * delta reader reports what never happened). Clients are held only while they are in the list:
 * one gone at a collection is released, and only its counts are kept (they come back out if the
 * same client returns, since its own `stats()` then counts them again).
 */
export class RetainedTotals {
  // The clients of the last collection and their counts then.
  #present = new Map<object, CounterTotals>()
  // What each client that left added to #sum: weak, so a gone client can still be collected.
  #gone = new WeakMap<object, CounterTotals>()
  #sum: CounterTotals = NO_COUNTS

  /**
   * Takes the clients of this collection and their stats; moves the last counts of those that
   * left into the retained sum. Returns the sum of every client that is gone.
   */
  update(now: ReadonlyMap<object, AnalyticsStats>): CounterTotals {
    for (const [client, counts] of this.#present) {
      if (now.has(client)) continue
      this.#sum = combine(this.#sum, counts, 1)
      this.#gone.set(client, counts)
    }
    const present = new Map<object, CounterTotals>()
    for (const [client, stats] of now) {
      const left = this.#gone.get(client)
      if (left !== undefined) {
        this.#sum = combine(this.#sum, left, -1)
        this.#gone.delete(client)
      }
      present.set(client, countsOf(stats))
    }
    this.#present = present
    return this.#sum
  }
}

function countsOf(s: AnalyticsStats): CounterTotals {
  return {
    accepted: s.accepted,
    filtered: s.filtered,
    refusedBy: { ...s.refusedBy },
    sent: s.sent,
    failedBy: { ...s.failedBy },
    retriedBy: { ...s.retriedBy },
  }
}

function combine(a: CounterTotals, b: CounterTotals, sign: 1 | -1): CounterTotals {
  return {
    accepted: a.accepted + sign * b.accepted,
    filtered: a.filtered + sign * b.filtered,
    refusedBy: combineBy(a.refusedBy, b.refusedBy, sign),
    sent: a.sent + sign * b.sent,
    failedBy: combineBy(a.failedBy, b.failedBy, sign),
    retriedBy: combineBy(a.retriedBy, b.retriedBy, sign),
  }
}

function combineBy(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>, sign: 1 | -1): Record<string, number> {
  const out: Record<string, number> = { ...a }
  for (const [reason, n] of Object.entries(b)) out[reason] = (out[reason] ?? 0) + sign * n
  return out
}
