import type { Attributes, Histogram, Meter } from '@opentelemetry/api'
import type { StatsSource } from './instrument'

/**
 * Numbers clients in the order they are first seen (0, 1, 2 …): a client keeps its number for
 * life, so `perInstance` series never pass from one client to another when a tenant leaves.
 */
export function instanceNumbers(): (client: StatsSource) => number {
  const numbers = new WeakMap<StatsSource, number>()
  let next = 0
  return (client) => {
    let n = numbers.get(client)
    if (n === undefined) numbers.set(client, (n = next++))
    return n
  }
}

/**
 * Request durations, the one figure `stats()` cannot give: a histogram recorded per request (not
 * per message) from each client's `flush` and `drop` events. Clients are watched as they are seen
 * (at `instrument()` and at every collection, so tenants that come later count from then on).
 */
export function recordDurations(
  meter: Meter,
  componentName: (client: StatsSource) => string,
): { watch(clients: Iterable<StatsSource>): void; stop(): void } {
  const histogram: Histogram = meter.createHistogram('eventrail.exporter.operation.duration', {
    unit: 's',
    description: 'Time from a request’s start to its outcome, retries included (failed: by error.type)',
  })
  const seen = new WeakSet<StatsSource>()
  let isStopped = false
  return {
    watch(clients) {
      for (const client of clients) {
        if (seen.has(client) || typeof client.on !== 'function') continue
        seen.add(client)
        const base: Attributes = { 'otel.component.type': 'eventrail_client', 'otel.component.name': componentName(client) }
        client.on('flush', (info) => {
          if (!isStopped) histogram.record(info.durationMs / 1000, base)
        })
        client.on('drop', (info) => {
          if (!isStopped && info.durationMs !== undefined)
            histogram.record(info.durationMs / 1000, { ...base, 'error.type': info.error.name })
        })
      }
    },
    stop() {
      isStopped = true
    },
  }
}
