import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics'
import { Analytics } from '../../src'
import { instrument } from '../../src/otel'
import { startTestServer, type TestServer } from '../helpers/test-server'

// The bridge's counters are monotonic: a tenant that leaves (removed from the list, closed) must
// not take its counts out of the sum, or a cumulative reader sees the counter go back (a reset to
// Prometheus' rate()) and a delta reader reports messages that were never processed.

const COUNTERS = ['eventrail.message.processed', 'eventrail.exporter.message.exported', 'eventrail.exporter.retries']

let server: TestServer
let provider: MeterProvider
let cumulative: Reader
let delta: Reader
const retriedOnce = new Set<string>()
beforeEach(async () => {
  retriedOnce.clear()
  // 400 for "Rejected"; a batch with "Retried" is answered 503 once, then 200.
  server = await startTestServer((request) => {
    const events: string[] = (request.body?.batch ?? []).map((m: { event?: string }) => m.event)
    if (events.includes('Rejected')) return 400
    const key = JSON.stringify(request.body?.batch?.map((m: { messageId?: string }) => m.messageId))
    if (events.includes('Retried') && !retriedOnce.has(key)) {
      retriedOnce.add(key)
      return 503
    }
    return 200
  })
  cumulative = reader(AggregationTemporality.CUMULATIVE)
  delta = reader(AggregationTemporality.DELTA)
  provider = new MeterProvider({ readers: [cumulative.reader, delta.reader] })
})
afterEach(async () => {
  await provider.shutdown()
  await server.close()
})

interface Reader {
  reader: PeriodicExportingMetricReader
  /** Every counter point of a new collection: `metric|component|error.type` → value. */
  collect(): Promise<Map<string, number>>
}

function reader(temporality: AggregationTemporality): Reader {
  const exporter = new InMemoryMetricExporter(temporality)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  return {
    reader,
    async collect() {
      exporter.reset()
      await reader.forceFlush()
      const metrics: MetricData[] = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
      const points = new Map<string, number>()
      for (const m of metrics.filter((m) => COUNTERS.includes(m.descriptor.name))) {
        for (const p of m.dataPoints) {
          points.set(
            [m.descriptor.name, p.attributes['otel.component.name'], p.attributes['error.type'] ?? ''].join('|'),
            p.value as number,
          )
        }
      }
      return points
    },
  }
}

// A tenant that accepts `kept` messages, has one refused (invalid), one filtered, one failed (400)
// and one retried (503, then delivered): every counter, with and without error.type, moves.
async function busyTenant(name: string, kept: number): Promise<Analytics> {
  const analytics = new Analytics(`key-${name}`, {
    host: server.url,
    retryDelay: 0,
    errorHandler: () => undefined,
    plugins: [{ name: 'no-bots', process: (m) => (m.userId === 'bot' ? null : undefined) }],
  })
  for (let i = 0; i < kept; i++) analytics.track({ userId: name, event: 'Kept' })
  await analytics.flush()
  analytics.track({ userId: name } as never, () => {})
  analytics.track({ userId: 'bot', event: 'Kept' })
  analytics.track({ userId: name, event: 'Rejected' })
  await analytics.flush().catch(() => {})
  analytics.track({ userId: name, event: 'Retried' })
  await analytics.flush()
  return analytics
}

function expectNoDecrease(before: Map<string, number>, after: Map<string, number>): void {
  const decreased = [...before].filter(([key, value]) => (after.get(key) ?? 0) < value)
  expect(decreased).toEqual([])
}

describe('instrument(): counters never go back', () => {
  it('keeps the counts of a tenant that leaves in the sum: cumulative never decreases, a delta interval with nothing processed is 0', async () => {
    const [a, b, c] = [await busyTenant('a', 3), await busyTenant('b', 5), await busyTenant('c', 7)]
    const tenants = [a, b, c]
    const handle = instrument(() => tenants, { meter: provider.getMeter('eventrail-test') })
    const first = await cumulative.collect()
    await delta.collect()
    expect(first.get('eventrail.message.processed|eventrail|')).toBe(3 + 5 + 7 + 2 * 3) // kept, plus "Rejected" and "Retried" of each
    for (const key of ['processed|eventrail|invalid', 'processed|eventrail|filtered', 'exported|eventrail|400', 'retries|eventrail|503']) {
      expect([...first].find(([k]) => k.endsWith(key))?.[1]).toBe(3)
    }

    // b leaves: removed from the list and closed. Nothing is processed.
    tenants.splice(1, 1)
    await b.closeAndFlush()
    const second = await cumulative.collect()
    expectNoDecrease(first, second)
    expect(second).toEqual(first)
    const interval = await delta.collect()
    expect([...interval].filter(([, value]) => value !== 0)).toEqual([])

    // b comes back: its counts are not counted twice; a new message counts once.
    tenants.push(b)
    expect(await cumulative.collect()).toEqual(first)
    c.track({ userId: 'c', event: 'Kept' })
    await c.flush()
    const third = await cumulative.collect()
    expect(third.get('eventrail.message.processed|eventrail|')).toBe(22)
    const lastInterval = await delta.collect()
    expect([...lastInterval].filter(([, value]) => value !== 0)).toEqual([
      ['eventrail.message.processed|eventrail|', 1],
      ['eventrail.exporter.message.exported|eventrail|', 1],
    ])
    handle.stop()
    await Promise.all([a.closeAndFlush(), c.closeAndFlush()])
  })

  it('gives each client a number for life with perInstance: a series never passes to another client', async () => {
    const [a, b, c] = [await busyTenant('a', 3), await busyTenant('b', 1), await busyTenant('c', 2)]
    const tenants = [a, b, c]
    const handle = instrument(() => tenants, { meter: provider.getMeter('eventrail-test'), name: 'api', perInstance: true })
    const first = await cumulative.collect()
    expect(first.get('eventrail.message.processed|api/0|')).toBe(3 + 2)
    tenants.shift()
    await a.closeAndFlush()
    const second = await cumulative.collect()
    expectNoDecrease(first, second)
    expect(second.get('eventrail.message.processed|api/1|')).toBe(1 + 2)
    expect(second.get('eventrail.message.processed|api/2|')).toBe(2 + 2)
    handle.stop()
    await Promise.all([b.closeAndFlush(), c.closeAndFlush()])
  })
})
