import {
  ClosedError,
  DeliveryError,
  FilteredError,
  PlanViolationError,
  PluginError,
  TimeoutError,
  ValidationError,
  type AnalyticsStats,
  type Callback,
  type Delivery,
} from '../../src'
import type { SeenRequest } from '../faults/fault-server'
import type { Fate, ModelConfig } from './configs'

/** One accepted message: a call that did not throw. */
interface MessageRecord {
  readonly id: string
  readonly via: 'callback' | 'deliver'
  readonly fate: Fate
  /** Made after closeAndFlush() was called. */
  readonly afterClose: boolean
  /** Outcomes seen: callback runs, or the deliver promise's resolution. */
  outcomes: number
  error: Error | undefined
}

/** A flush() or closeAndFlush(): which messages came before it, and which had no outcome when it settled. */
interface FlushRecord {
  readonly label: string
  readonly before: number
  settled: boolean
  waiting: number | undefined
  missing: string[]
}

/**
 * The model: what the client was asked to do, and what each message's outcome may be. It records
 * outcomes as they come, and `check` lists every invariant that does not hold (empty: the run passed).
 *
 * The identity of `stats()` it checks, from src/client-ledger.ts and src/analytics.ts: every call
 * that is not thrown out synchronously ends in exactly one of `sent` (a 2xx), `failed` (its
 * request failed for good, the breaker failed it, closing timed out or left it in the spool),
 * `dropped` (refused before it was queued: invalid, a plan violation in drop or throw mode, a
 * plugin failure, closed, full) or `filtered` (a plugin returned null). A call that throws is
 * counted in `dropped` too (the ledger counts the refusal, then throws). So, once everything has
 * its outcome: `sent + failed + dropped + filtered = accepted calls + thrown calls`, `accepted`
 * (messages that were queued) `= sent + failed`, and queued, inFlight and inPlugins are 0.
 */
export class Oracle {
  readonly #config: ModelConfig
  readonly #messages: MessageRecord[] = []
  readonly #flushes: FlushRecord[] = []
  readonly #violations: string[] = []
  #closed = false
  #thrown = 0

  constructor(config: ModelConfig) {
    this.#config = config
  }

  get messages(): number {
    return this.#messages.length
  }

  /** closeAndFlush() was called: later messages must be refused with a ClosedError. */
  closing(): void {
    this.#closed = true
  }

  /** A call threw synchronously (it was not accepted). */
  thrown(): void {
    this.#thrown += 1
  }

  violation(text: string): void {
    this.#violations.push(text)
  }

  /** The callback of an accepted message. */
  callback(id: string, fate: Fate): Callback {
    const record = this.#add(id, 'callback', fate)
    return (err) => {
      record.outcomes += 1
      record.error ??= err
    }
  }

  /** Watches the promise of a `deliver.*` call. */
  deliver(id: string, fate: Fate, outcome: Promise<Delivery>): Promise<void> {
    const record = this.#add(id, 'deliver', fate)
    return outcome.then(
      (delivery) => {
        record.outcomes += 1
        if (delivery.messageId !== id) this.violation(`${id}: deliver resolved with messageId ${String(delivery.messageId)}`)
        if (!delivery.delivered) record.error = delivery.error
      },
      (err: unknown) => {
        record.outcomes += 1
        this.violation(`${id}: deliver.* rejected (${String(err)}); it must never reject`)
      },
    )
  }

  /**
   * A flush (or closeAndFlush) was called now. `settled` is called when it settles (its callback
   * runs, or its promise settles), `result` with what its promise resolved to (`{ waiting }` with
   * a spool: flush(callback) calls the callback first, then resolves with it).
   */
  flushStarted(label: string): { settled(result: unknown): void; result(value: unknown): void } {
    const record: FlushRecord = { label, before: this.#messages.length, settled: false, waiting: undefined, missing: [] }
    this.#flushes.push(record)
    const result = (value: unknown): void => {
      const waiting = (value as { waiting?: unknown } | undefined)?.waiting
      if (typeof waiting === 'number') record.waiting = waiting
    }
    const settled = (value: unknown): void => {
      if (record.settled) this.violation(`${label} settled twice`)
      record.settled = true
      result(value)
      const earlier = this.#messages.slice(0, record.before)
      record.missing = earlier.filter((m) => m.via === 'callback' && m.outcomes === 0).map((m) => m.id)
      // A deliver.* promise resolved before the flush settled is seen here one microtask later
      // (its `then`): look at those a few microtasks on, still before any timer or I/O.
      void Promise.resolve()
        .then(() => undefined)
        .then(() => {
          record.missing.push(...earlier.filter((m) => m.via === 'deliver' && m.outcomes === 0).map((m) => m.id))
        })
    }
    return { settled, result }
  }

  /** What the run went through: outcomes by error class (`delivered`), flushes that left messages `waiting`. */
  coverage(): Record<string, number> {
    const seen: Record<string, number> = {}
    const bump = (key: string): void => void (seen[key] = (seen[key] ?? 0) + 1)
    for (const m of this.#messages) if (m.outcomes > 0) bump(m.error === undefined ? 'delivered' : m.error.name)
    for (const f of this.#flushes) if ((f.waiting ?? 0) > 0) bump(`${f.label === 'closeAndFlush' ? 'close' : 'flush'} waiting`)
    if (this.#thrown > 0) seen.thrown = this.#thrown
    return seen
  }

  /** Ids of messages that have no outcome yet. */
  pending(): string[] {
    return this.#messages.filter((m) => m.outcomes === 0).map((m) => m.id)
  }

  /** Every invariant that does not hold, once the client is closed and everything settled. */
  check(requests: readonly SeenRequest[], accepted: ReadonlyMap<string, number>, stats: AnalyticsStats): string[] {
    const out = [...this.#violations]
    const received = new Set<string>()
    for (const request of requests) for (const m of request.messages) received.add(String(m?.messageId))
    for (const m of this.#messages) {
      if (m.outcomes !== 1) out.push(`${m.id} (${m.via}): ${m.outcomes} outcomes, expected exactly 1`)
      if (m.outcomes === 0) continue
      if (m.error === undefined && !accepted.has(m.id)) out.push(`${m.id}: delivered, but the server never answered 2xx to a request with it`)
      const refusal = this.#expectedRefusal(m)
      if (refusal !== undefined && received.has(m.id)) out.push(`${m.id}: should have been refused (${refusal.name}), but the server received it`)
      const problem = this.#unexpected(m, refusal)
      if (problem !== undefined) out.push(`${m.id} (${m.via}${m.afterClose ? ', after close' : ''}): ${problem}`)
    }
    for (const f of this.#flushes) {
      if (!f.settled) out.push(`${f.label} never settled`)
      else if (f.missing.length > 0 && !(this.#config.spool && f.label !== 'closeAndFlush' && (f.waiting ?? 0) >= f.missing.length)) {
        out.push(
          `${f.label} settled (waiting: ${String(f.waiting)}) before ${f.missing.length} earlier message(s) had an outcome: ${f.missing.slice(0, 5).join(', ')}`,
        )
      }
    }
    out.push(...this.#checkStats(stats))
    return out
  }

  #add(id: string, via: 'callback' | 'deliver', fate: Fate): MessageRecord {
    const record: MessageRecord = { id, via, fate, afterClose: this.#closed, outcomes: 0, error: undefined }
    this.#messages.push(record)
    return record
  }

  // The error class a message must be refused with before any request, or undefined when it goes out.
  #expectedRefusal(m: MessageRecord): (abstract new (...args: never[]) => Error) | undefined {
    switch (m.fate) {
      case 'invalid':
        return ValidationError
      case 'planViolation':
        return this.#config.planMode === 'report' ? undefined : PlanViolationError
      case 'pluginDrop':
        return FilteredError
      case 'pluginThrow':
      case 'pluginSlow':
        return PluginError
      default:
        return m.afterClose ? ClosedError : undefined
    }
  }

  #unexpected(m: MessageRecord, refusal: (abstract new (...args: never[]) => Error) | undefined): string | undefined {
    const error = m.error
    const name = error === undefined ? 'delivered' : `${error.name}: ${error.message.slice(0, 160)}`
    // A closed client refuses what comes later, whatever it is (an invalid message may still be refused as invalid).
    if (m.afterClose) return error instanceof ClosedError || (refusal !== undefined && error instanceof refusal) ? undefined : `expected ClosedError, got ${name}`
    if (refusal !== undefined) {
      if (error instanceof refusal && (refusal !== ValidationError || !(error instanceof PlanViolationError))) return undefined
      return `expected ${refusal.name}, got ${name}`
    }
    if (error === undefined || error instanceof DeliveryError || error instanceof TimeoutError) return undefined
    // Closing with a timeout while an async plugin still holds the message: refused as closed.
    if (error instanceof ClosedError && this.#config.plugins === 'async') return undefined
    return `expected delivered or a DeliveryError/TimeoutError, got ${name}`
  }

  #checkStats(s: AnalyticsStats): string[] {
    const out: string[] = []
    const said = (what: string, actual: number, expected: number): void => {
      if (actual !== expected) out.push(`stats: ${what} is ${actual}, expected ${expected} (${JSON.stringify(pick(s))})`)
    }
    const done = this.#messages.filter((m) => m.outcomes > 0)
    const delivered = done.filter((m) => m.error === undefined).length
    said('queued', s.queued, 0)
    said('inFlight', s.inFlight, 0)
    said('inPlugins', s.inPlugins, 0)
    said('accepted', s.accepted, s.sent + s.failed)
    said('sent', s.sent, delivered)
    said('failed + dropped + filtered', s.failed + s.dropped + s.filtered, done.length - delivered + this.#thrown)
    said('sent + failed + dropped + filtered', s.sent + s.failed + s.dropped + s.filtered, this.#messages.length + this.#thrown)
    said('filtered', s.filtered, done.filter((m) => m.error instanceof FilteredError).length)
    if (this.#config.planMode !== undefined) {
      said('violations', s.violations, this.#messages.filter((m) => m.fate === 'planViolation' && !m.afterClose).length)
    }
    return out
  }
}

function pick(s: AnalyticsStats): Record<string, number> {
  const { accepted, sent, failed, dropped, filtered, queued, inFlight, inPlugins, violations } = s
  return { accepted, sent, failed, dropped, filtered, queued, inFlight, inPlugins, violations }
}
