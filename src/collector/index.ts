/**
 * The local collector: `import { createCollector } from 'eventrail/collector'`. A real HTTP server that
 * implements the wire interface, gives each message the verdict the service would, and serves a live
 * debugger page. For development and tests, not for production.
 * @module eventrail/collector
 */
export { createCollector } from './server'
export { COLLECTOR_DEFAULTS } from './options'
export { judgeMessage, MESSAGE_TYPES, BATCH_TYPES } from './verdict'
export type { Drop, MessageKind } from './verdict'
export { selectDestinations, isHistorical } from './destinations'
export { mergeEnvelope } from './envelope'
export type { Collector, CollectorOptions, CollectorEvents, CollectorStats, MessageRecord, RequestRecord, Verdict, DropCode } from './types'
export { formatRecords, summarizeRecord } from './format'
export type { RecordSummary } from './format'
export type { PlanViolation } from './plan-schema'
export type { WaitOptions } from './wait'
