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

// The OpenTelemetry bridge with a real MeterProvider and an in-memory exporter: clients over real
// HTTP, their stats() read at collection time, summed over instances by default.

let server: TestServer
let provider: MeterProvider
let exporter: InMemoryMetricExporter
let reader: PeriodicExportingMetricReader
beforeEach(async () => {
  server = await startTestServer((request) => (request.body?.batch?.some((m: any) => m.event === 'Rejected') ? 400 : 200))
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  provider = new MeterProvider({ readers: [reader] })
})
afterEach(async () => {
  await provider.shutdown()
  await server.close()
})

// Every point of the last export: metric name → [attributes, value][].
async function collect(): Promise<Record<string, [Record<string, unknown>, number][]>> {
  exporter.reset()
  await reader.forceFlush()
  const metrics: MetricData[] = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
  return Object.fromEntries(metrics.map((m) => [m.descriptor.name, m.dataPoints.map((p) => [p.attributes, p.value as number])]))
}

function value(points: [Record<string, unknown>, number][] | undefined, errorType?: string, component = 'eventrail'): number | undefined {
  return points?.find(([a]) => a['error.type'] === errorType && a['otel.component.name'] === component)?.[1]
}

describe('instrument(): client health in OpenTelemetry', () => {
  it('reports queue, outcomes by error.type, exports, retries and requests, summed over clients, without the write key', async () => {
    const meter = provider.getMeter('eventrail-test')
    const a = new Analytics('secret-key-a', {
      host: server.url,
      maxQueueSize: 100,
      retryDelay: 0,
      plugins: [{ name: 'no-bots', process: (m) => (m.userId === 'bot' ? null : undefined) }],
    })
    const b = new Analytics('secret-key-b', { host: server.url, maxQueueSize: 50, retryDelay: 0 })
    const handle = instrument([a, b], { meter })

    a.track({ userId: 'u1', event: 'Kept' }).track({ userId: 'bot', event: 'Kept' })
    a.track({ userId: 'u1' } as never, () => {}) // invalid: refused
    b.track({ userId: 'u2', event: 'Kept' }).track({ userId: 'u2', event: 'Rejected' })
    await Promise.all([a.flush(), b.flush().catch(() => {})])

    const m = await collect()
    expect(value(m['eventrail.queue.size'])).toBe(0)
    expect(value(m['eventrail.queue.capacity'])).toBe(150)
    expect(value(m['eventrail.message.processed'])).toBe(3) // accepted: u1 by a, two by b
    expect(value(m['eventrail.message.processed'], 'filtered')).toBe(1)
    expect(value(m['eventrail.message.processed'], 'invalid')).toBe(1)
    // The first message of each client goes at once, alone; b's "Rejected" was answered 400.
    expect(value(m['eventrail.exporter.message.exported'])).toBe(2)
    expect(value(m['eventrail.exporter.message.exported'], '400')).toBe(1)
    expect(value(m['eventrail.exporter.message.inflight'])).toBe(0)
    expect(value(m['eventrail.requests.inflight'])).toBe(0)
    expect(value(m['eventrail.requests.limit'])).toBe(64) // 32 each, summed
    expect(m['eventrail.queue.size'][0][0]).toEqual({ 'otel.component.type': 'eventrail_client', 'otel.component.name': 'eventrail' })
    expect(JSON.stringify(m)).not.toContain('secret-key')

    // After stop(), stats() is no longer read: what the SDK reports no longer moves.
    handle.stop()
    a.track({ userId: 'u3', event: 'Kept' })
    await a.flush()
    expect(value((await collect())['eventrail.message.processed'])).not.toBe(4)
    expect(a.stats().accepted).toBe(2)
  })

  it('counts retries by error.type, and gives each client its own series with perInstance', async () => {
    let calls = 0
    server.respond = () => (calls++ === 0 ? 503 : 200)
    const meter = provider.getMeter('eventrail-test')
    const a = new Analytics('key', { host: server.url, retryDelay: 0 })
    const b = new Analytics('key', { host: server.url, retryDelay: 0 })
    instrument(() => [a, b], { meter, name: 'api', perInstance: true })
    a.track({ userId: 'u1', event: 'E' })
    await a.flush()
    const m = await collect()
    expect(value(m['eventrail.exporter.retries'], '503', 'api/0')).toBe(1)
    expect(value(m['eventrail.exporter.message.exported'], undefined, 'api/0')).toBe(1)
    expect(value(m['eventrail.exporter.message.exported'], undefined, 'api/1')).toBe(0)
  })

  it('checks its options', () => {
    const a = new Analytics('key', { enable: false })
    expect(() => instrument(a, {} as never)).toThrow('instrument: "meter" must be an OpenTelemetry Meter (metrics.getMeter(\'eventrail\'))')
    expect(() => instrument(a, { meter: provider.getMeter('x'), name: '' })).toThrow('instrument: "name" must be a non-empty string')
  })

  it('records the duration of each request in a histogram, failed ones by error.type, clients that come later included', async () => {
    const meter = provider.getMeter('eventrail-test')
    const tenants: Analytics[] = []
    const handle = instrument(() => tenants, { meter })
    const a = new Analytics('key-a', { host: server.url, errorHandler: () => undefined })
    tenants.push(a)
    await collect() // a is seen here, at a collection: counted from now on
    a.track({ userId: 'u1', event: 'Kept' })
    a.track({ userId: 'u1', event: 'Rejected' })
    await a.flush()
    const m = await collect()
    handle.stop()
    const points = m['eventrail.exporter.operation.duration'] as unknown as [Record<string, unknown>, { count: number; sum: number }][]
    const ok = points.find(([attrs]) => attrs['error.type'] === undefined)?.[1]
    const failed = points.find(([attrs]) => attrs['error.type'] === 'DeliveryError')?.[1]
    expect(ok?.count).toBeGreaterThanOrEqual(1)
    expect(failed?.count).toBe(1)
    expect(ok!.sum).toBeGreaterThanOrEqual(0)
    expect(ok!.sum).toBeLessThan(60)
    for (const [attrs] of points) expect(JSON.stringify(attrs)).not.toContain('key-a')
  })
})
