/**
 * Client health in OpenTelemetry: `import { instrument } from 'eventrail/otel'`. Takes your `Meter`
 * (from `@opentelemetry/api`, an optional peer dependency: this entry imports only its types) and
 * reads `stats()` when metrics are collected.
 * @module eventrail/otel
 */
export { instrument } from './instrument'
export type { InstrumentOptions, Instrumentation, StatsSource } from './instrument'
