import { FilteredError, type AnalyticsStats } from '../../src'
import type { ModelConfig } from './configs'
import type { MessageRecord } from './expectations'

/**
 * The identity of `stats()` that every run must end with, from src/client-ledger.ts and src/analytics.ts: every call
 * that is not thrown out synchronously ends in exactly one of `sent` (a 2xx), `failed` (its
 * request failed for good, the breaker failed it, closing timed out or left it in the spool),
 * `dropped` (refused before it was queued: invalid, a plan violation in drop or throw mode, a
 * plugin failure, closed, full) or `filtered` (a plugin returned null). A call that throws is
 * counted in `dropped` too (the ledger counts the refusal, then throws). So, once everything has
 * its outcome: `sent + failed + dropped + filtered = accepted calls + thrown calls`, `accepted`
 * (messages that were queued) `= sent + failed`, and queued, inFlight and inPlugins are 0. With
 * a spool, a `deliver.*` call that settled `kept: true` (on disk, waiting for the service) may
 * still be delivered before the close: `sent` is then between the delivered outcomes and those
 * plus the kept ones.
 */
/** Lists what of the identity does not hold, once the client is closed and every outcome came. */
export function checkStats(s: AnalyticsStats, messages: readonly MessageRecord[], thrown: number, config: ModelConfig): string[] {
  const out: string[] = []
  const said = (what: string, actual: number, expected: number): void => {
    if (actual !== expected) out.push(`stats: ${what} is ${actual}, expected ${expected} (${JSON.stringify(pick(s))})`)
  }
  const done = messages.filter((m) => m.outcomes > 0)
  const delivered = done.filter((m) => m.error === undefined).length
  said('queued', s.queued, 0)
  said('inFlight', s.inFlight, 0)
  said('inPlugins', s.inPlugins, 0)
  said('accepted', s.accepted, s.sent + s.failed)
  const kept = done.filter((m) => m.kept === true).length
  if (s.sent < delivered || s.sent > delivered + kept) said('sent', s.sent, delivered)
  said('failed + dropped + filtered', s.failed + s.dropped + s.filtered, done.length - s.sent + thrown)
  said('sent + failed + dropped + filtered', s.sent + s.failed + s.dropped + s.filtered, messages.length + thrown)
  said('filtered', s.filtered, done.filter((m) => m.error instanceof FilteredError).length)
  if (config.planMode !== undefined) {
    said('violations', s.violations, messages.filter((m) => m.fate === 'planViolation' && !m.afterClose).length)
  }
  return out
}

function pick(s: AnalyticsStats): Record<string, number> {
  const { accepted, sent, failed, dropped, filtered, queued, inFlight, inPlugins, violations } = s
  return { accepted, sent, failed, dropped, filtered, queued, inFlight, inPlugins, violations }
}
