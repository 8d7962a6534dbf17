/**
 * The client: `import { Analytics } from 'eventrail'`, its options, message types and error classes.
 * @module eventrail
 */
export { Analytics } from './client/analytics'
export type { CloseOptions } from './client/close-options'
export { DEFAULT_HOST, EU_HOST, DEFAULTS } from './config/options'
export type { AnalyticsOptions } from './config/options'
export {
  EventrailError,
  ValidationError,
  MessageTooLargeError,
  DeliveryError,
  ServiceUnavailableError,
  PoisonMessageError,
  QueueFullError,
  ClosedError,
  TimeoutError,
  SpoolError,
  ConsentError,
  isEventrailError,
} from './core/errors'
export type { DeliveryDetails, DeliveryFailure } from './core/errors'
export type { SpoolOptions } from './config/spool-option'
export { FilteredError, PluginError } from './plugins/errors'
export type { Plugin, PluginMessage, PluginTrack, PluginResult, PluginInfo } from './plugins/types'
export { PlanSchemaError, PlanViolationError } from './plan/errors'
export type { PlanIssue } from './plan/errors'
export type { PlanMode } from './plan/check'
export type { TrackingPlan } from './plan/define-plan'
export { MAX_MESSAGE_BYTES, MAX_BATCH_BYTES } from './core/limits'
export { LIBRARY_NAME, VERSION } from './core/version'
export type { AnalyticsEvents, AnalyticsStats, BreakerChange, FlushInfo, HostStats, DropInfo, ReplayInfo, SpoolStats } from './client/observe'
export type { RetryInfo } from './delivery/deliver'
export type { Delivery, DeliverMethods } from './client/deliver-methods'
export type {
  MessageType,
  Id,
  Properties,
  Traits,
  Integrations,
  Context,
  Identity,
  CommonFields,
  IdentifyMessage,
  EventCatalog,
  AnyEvents,
  EventFields,
  TrackMessage,
  TrackInput,
  PageProperties,
  PageMessage,
  ScreenMessage,
  GroupMessage,
  AliasMessage,
  Message,
  Callback,
  ErrorHandler,
  FetchLike,
  FlushResult,
} from './core/types'
export { importMessages } from './import-entry'
export type { ImportClient } from './import/engine'
export type { ImportOptions, ImportProgress, ImportSummary, ImportIssue, ImportSource } from './import/types'
