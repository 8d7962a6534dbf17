import {
  AttemptTimeout,
  ClosedError,
  ConsentError,
  DeliveryError,
  MessageTooLargeError,
  QueueFullError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '../core/errors'
import type { RetryInfo } from '../delivery/deliver'
import { PlanSchemaError, PlanViolationError } from '../plan/errors'
import { PluginError } from '../plugins/errors'

/**
 * Why a message was refused before it was queued, as a short stable code for `stats().refusedBy`
 * and metrics' `error.type`: `invalid`, `too_large`, `plan_violation`, `plan_error` (a schema of
 * the plan failed), `queue_full`, `closed`, `plugin_error`, `close_timeout` (still in a plugin when
 * the `closeAndFlush` timeout passed), `consent` (withheld: the request's consent does not cover
 * its category, `eventrail/context`), or `client_error` (the client or the runtime failed, not
 * the message). Pure.
 */
export function refusalReason(error: Error): string {
  if (error instanceof PlanViolationError) return 'plan_violation'
  if (error instanceof MessageTooLargeError) return 'too_large'
  if (error instanceof ValidationError) return 'invalid'
  if (error instanceof QueueFullError) return 'queue_full'
  if (error instanceof ClosedError) return 'closed'
  if (error instanceof PluginError) return 'plugin_error'
  if (error instanceof PlanSchemaError) return 'plan_error'
  if (error instanceof TimeoutError) return 'close_timeout'
  if (error instanceof ConsentError) return 'consent'
  return 'client_error'
}

/**
 * Why a request failed for good, as a short stable code for `stats().failedBy`: the HTTP status
 * (`'400'`, `'503'` …), `timeout` (the last attempt timed out), `network` (no answer),
 * `service_unavailable` (failed fast while the service is down: the outage breaker),
 * `close_timeout` (the `closeAndFlush` timeout ended it) or `error`. Pure.
 */
export function failureReason(error: Error): string {
  if (error instanceof TimeoutError) return 'close_timeout'
  if (error instanceof ServiceUnavailableError) return 'service_unavailable'
  if (!(error instanceof DeliveryError)) return 'error'
  if (error.status !== undefined) return String(error.status)
  // Out of time (`expired`) after an attempt that timed out is a timeout too.
  return error.reason === 'timeout' || error.cause instanceof AttemptTimeout ? 'timeout' : 'network'
}

/** Why a request is retried, for `stats().retriedBy`: the HTTP status, `timeout` or `network`. Pure. */
export function retryReason(info: RetryInfo): string {
  if (info.status !== undefined) return String(info.status)
  return info.error instanceof AttemptTimeout ? 'timeout' : 'network'
}
