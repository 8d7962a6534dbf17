import type { Attributes, BatchObservableResult, Meter, Observable } from '@opentelemetry/api'
import { ValidationError } from '../core/errors'
import { ownOptions } from '../core/own-options'
import type { AnalyticsEvents, AnalyticsStats } from '../client/observe'
import { instanceNumbers, recordDurations } from './durations'
import { RetainedTotals } from './retained'
import { healthPoints, type HealthPoints, type Point } from './totals'

/** Anything with `stats()`: an `Analytics` client. */
export interface StatsSource {
  /** The client's counts now: see `Analytics.stats()`. */
  stats(): AnalyticsStats
  /** Its events (an `Analytics` client has them): each request's duration is recorded from `flush` and `drop`. */
  on?<K extends keyof AnalyticsEvents>(event: K, listener: (payload: AnalyticsEvents[K]) => void): unknown
}

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** The meter to create the instruments with: `metrics.getMeter('eventrail')` from `@opentelemetry/api`. */
  readonly meter: Meter
  /**
   * `otel.component.name` of the series: low-cardinality, never a write key or a tenant id.
   * @defaultValue 'eventrail'
   */
  readonly name?: string
  /**
   * `false` (the default) sums every client into one series (the counts of clients that are gone
   * stay in the sum: its counters never go back); `true` gives each its own, `otel.component.name`
   * `<name>/<n>`, n counting the clients in the order the bridge first saw them (only for a few,
   * fixed clients: one per tenant would be one series per tenant).
   * @defaultValue false
   */
  readonly perInstance?: boolean
}

/** What {@link instrument} returns. */
export interface Instrumentation {
  /** Stops reporting: the instruments' callback is removed. */
  stop(): void
}

/**
 * Reports the health of clients through OpenTelemetry metrics, read from their `stats()` when the
 * SDK collects (nothing is done per message): queue size and capacity, messages processed
 * (accepted, or refused/filtered by `error.type`), messages in flight, exported (sent, or failed by
 * `error.type`), retries by `error.type`, requests in flight and their limit. The write key is never
 * an attribute.
 *
 * @param clients - one client, an array, or a function returning the clients now (tenants come and go).
 * @throws ValidationError when `meter` or an option is invalid.
 * @example
 * ```ts
 * import { metrics } from '@opentelemetry/api'
 * import { instrument } from 'eventrail/otel'
 *
 * const handle = instrument(analytics, { meter: metrics.getMeter('eventrail') })
 * // … on shutdown
 * handle.stop()
 * ```
 */
export function instrument(
  clients: StatsSource | readonly StatsSource[] | (() => Iterable<StatsSource>),
  options: InstrumentOptions,
): Instrumentation {
  // Own fields only, each read once: nothing of a polluted Object.prototype is taken for an option.
  const own = (typeof options === 'object' && options !== null
    ? ownOptions(options, 'options', 'instrument')
    : {}) as unknown as InstrumentOptions
  const { meter, name = 'eventrail', perInstance = false } = own
  if (typeof meter?.addBatchObservableCallback !== 'function') {
    throw new ValidationError('meter', "must be an OpenTelemetry Meter (metrics.getMeter('eventrail'))", 'instrument')
  }
  if (typeof name !== 'string' || name.trim() === '') throw new ValidationError('name', 'must be a non-empty string', 'instrument')
  const list: () => Iterable<StatsSource> =
    typeof clients === 'function'
      ? clients
      : Array.isArray(clients)
        ? () => clients as readonly StatsSource[]
        : () => [clients as StatsSource]
  const instruments = createInstruments(meter)
  const observables = Object.values(instruments) as Observable[]
  const numbers = instanceNumbers()
  const durations = recordDurations(meter, perInstance ? (client) => `${name}/${numbers(client)}` : () => name)
  const retained = new RetainedTotals()
  durations.watch(list())
  const callback = (result: BatchObservableResult): void => {
    // Each client once, however often the list names it.
    const clientsNow = [...new Set(list())]
    durations.watch(clientsNow)
    const stats = new Map<StatsSource, AnalyticsStats>(clientsNow.map((client) => [client, client.stats()]))
    if (perInstance) {
      // A client keeps its number for life: a series never passes to another client.
      for (const [client, s] of stats) observe(result, instruments, healthPoints([s]), `${name}/${numbers(client)}`)
    } else {
      observe(result, instruments, healthPoints([...stats.values()], retained.update(stats)), name)
    }
  }
  meter.addBatchObservableCallback(callback, observables)
  return {
    stop: () => {
      durations.stop()
      meter.removeBatchObservableCallback(callback, observables)
    },
  }
}

type Instruments = ReturnType<typeof createInstruments>

// Names shaped like the OpenTelemetry SDK's own (`otel.sdk.*`), in eventrail's namespace.
function createInstruments(meter: Meter) {
  return {
    queueSize: meter.createObservableUpDownCounter('eventrail.queue.size', {
      unit: '{message}',
      description: 'Messages held: queued, in flight or waiting to be retried',
    }),
    queueCapacity: meter.createObservableUpDownCounter('eventrail.queue.capacity', {
      unit: '{message}',
      description: 'Most messages held at once (maxQueueSize)',
    }),
    processed: meter.createObservableCounter('eventrail.message.processed', {
      unit: '{message}',
      description: 'Messages taken by the client: accepted, or refused by error.type',
    }),
    inflight: meter.createObservableUpDownCounter('eventrail.exporter.message.inflight', {
      unit: '{message}',
      description: 'Messages in requests being sent or waiting to be retried',
    }),
    exported: meter.createObservableCounter('eventrail.exporter.message.exported', {
      unit: '{message}',
      description: 'Messages delivered, or failed for good by error.type; retries not counted',
    }),
    retries: meter.createObservableCounter('eventrail.exporter.retries', {
      unit: '{retry}',
      description: 'Requests retried, by error.type of the attempt that failed',
    }),
    requestsInFlight: meter.createObservableUpDownCounter('eventrail.requests.inflight', {
      unit: '{request}',
      description: 'HTTP requests in flight',
    }),
    requestLimit: meter.createObservableGauge('eventrail.requests.limit', {
      unit: '{request}',
      description: 'How many requests may be in flight now (adaptive, or maxInFlight)',
    }),
  }
}

function observe(result: BatchObservableResult, instruments: Instruments, health: HealthPoints, componentName: string): void {
  const base: Attributes = { 'otel.component.type': 'eventrail_client', 'otel.component.name': componentName }
  result.observe(instruments.queueSize, health.queueSize, base)
  result.observe(instruments.queueCapacity, health.queueCapacity, base)
  result.observe(instruments.inflight, health.inflightMessages, base)
  result.observe(instruments.requestsInFlight, health.requestsInFlight, base)
  result.observe(instruments.requestLimit, health.requestLimit, base)
  const each = (observable: Observable, points: readonly Point[]): void => {
    for (const p of points) result.observe(observable, p.value, p.errorType === undefined ? base : { ...base, 'error.type': p.errorType })
  }
  each(instruments.processed, health.processed)
  each(instruments.exported, health.exported)
  each(instruments.retries, health.retries)
}
