/**
 * Client health in OpenTelemetry: `import { instrument } from 'eventrail/otel'`. Takes your `Meter`
 * (from `@opentelemetry/api`, an optional peer dependency: this entry imports only its types) and
 * reads `stats()` when metrics are collected. `stampTraces` (also in `eventrail/context`) stamps the
 * active span's `traceId` and `spanId` into each message's `context.trace`.
 * @module eventrail/otel
 */
export { instrument } from './instrument'
export type { InstrumentOptions, Instrumentation, StatsSource } from './instrument'
export { stampTraces } from '../context/with-context'
export type { TraceApi, TraceSpan } from '../context/trace'
