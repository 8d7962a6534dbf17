import type { AnalyticsStats, Callback, Delivery } from '../../src'
import type { SeenRequest } from '../faults/fault-server'
import type { Fate, ModelConfig } from './configs'
import { expectedRefusal, unexpectedOutcome, type MessageRecord } from './expectations'
import { checkStats } from './stats-identity'

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
        if (!delivery.delivered && delivery.kept === true) record.kept = true
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
      if (m.error === undefined && !accepted.has(m.id))
        out.push(`${m.id}: delivered, but the server never answered 2xx to a request with it`)
      const refusal = expectedRefusal(m, this.#config)
      if (refusal !== undefined && received.has(m.id))
        out.push(`${m.id}: should have been refused (${refusal.name}), but the server received it`)
      const problem = unexpectedOutcome(m, refusal, this.#config)
      if (problem !== undefined) out.push(`${m.id} (${m.via}${m.afterClose ? ', after close' : ''}): ${problem}`)
    }
    for (const f of this.#flushes) {
      if (!f.settled) out.push(`${f.label} never settled`)
      else if (f.missing.length > 0 && !(this.#config.spool && f.label !== 'closeAndFlush' && (f.waiting ?? 0) >= f.missing.length)) {
        out.push(
          `${f.label} settled (waiting: ${String(f.waiting)}) before ${f.missing.length} earlier message(s) had an outcome: ${f.missing
            .slice(0, 5)
            .map((id) => `${id} (later: ${this.#laterOutcome(id)})`)
            .join(', ')}`,
        )
      }
    }
    out.push(...checkStats(stats, this.#messages, this.#thrown, this.#config))
    return out
  }

  // What a message that had no outcome when a flush settled got afterwards.
  #laterOutcome(id: string): string {
    const m = this.#messages.find((r) => r.id === id)
    return m === undefined || m.outcomes === 0 ? 'none' : (m.error?.name ?? 'delivered')
  }

  #add(id: string, via: 'callback' | 'deliver', fate: Fate): MessageRecord {
    const record: MessageRecord = { id, via, fate, afterClose: this.#closed, outcomes: 0, error: undefined }
    this.#messages.push(record)
    return record
  }
}
