/**
 * The client's health in OpenTelemetry, scraped by Prometheus: queue size, messages accepted,
 * refused, sent and failed by reason, retries, requests in flight. The bridge reads `stats()` when
 * Prometheus scrapes: nothing is done per message.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/otel-prometheus.js
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { Analytics } from 'eventrail'
import { instrument } from 'eventrail/otel'

// The app's metrics, on its own /metrics endpoint (here on a free port of 127.0.0.1; in an app,
// PrometheusExporter's own server on :9464 does as well).
const exporter = new PrometheusExporter({ preventServerStart: true })
const provider = new MeterProvider({ readers: [exporter] })
const server = createServer((req, res) => exporter.getMetricsRequestHandler(req, res))
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`

const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
})
const health = instrument(analytics, { meter: provider.getMeter('eventrail'), name: 'shop-api' })

analytics.track({ userId: 'user-42', event: 'Order Completed', properties: { total: 39 } })
analytics.track({ userId: 'user-42', event: '' }, () => {}) // invalid: refused, and counted
await analytics.flush()

// What Prometheus would scrape:
const text = await (await fetch(metricsUrl)).text()
for (const line of text.split('\n')) if (line.startsWith('eventrail_')) console.log(line)

health.stop()
await analytics.closeAndFlush()
await provider.shutdown()
server.close()
