import {
  ClosedError,
  ConsentError,
  DeliveryError,
  EventrailError,
  MessageTooLargeError,
  QueueFullError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '../../src'
import { PlanSchemaError, PlanViolationError } from '../../src/plan/errors'
import { PluginError } from '../../src/plugins/errors'
import { failureReason, refusalReason, retryReason } from '../../src/client/outcome-reasons'
import { AttemptTimeout } from '../../src/core/errors'

// The short codes of stats().refusedBy, failedBy and retriedBy (and the bridge's error.type).

describe('outcome reasons', () => {
  it.each([
    [new PlanViolationError('track "E"', 'E', [{ path: 'properties.x', message: 'no' }]), 'plan_violation'],
    [new MessageTooLargeError('track', 40_000, 32_768), 'too_large'],
    [new ValidationError('event', 'is required', 'track'), 'invalid'],
    [new QueueFullError('full'), 'queue_full'],
    [new ClosedError('closed'), 'closed'],
    [new PluginError('track', 'p', 'threw', false), 'plugin_error'],
    [new PlanSchemaError('track "E"', 'E', 'events["E"]', 'threw Error: x', false), 'plan_error'],
    [new TimeoutError('closeAndFlush: still in plugin "p"'), 'close_timeout'],
    [new ConsentError('track "Ad Clicked": withheld for consent', ['Advertising'], true), 'consent'],
    [new EventrailError('the client failed'), 'client_error'],
  ])('refusal %p is %s', (error, reason) => {
    expect(refusalReason(error)).toBe(reason)
  })

  it.each([
    [new DeliveryError('/v1/batch: 400', 400), '400'],
    [new DeliveryError('/v1/batch: gave up', undefined, 3, { cause: new AttemptTimeout('timed out after 10000 ms') }), 'timeout'],
    [new DeliveryError('/v1/batch: gave up', undefined, 3, { cause: new Error('ECONNRESET') }), 'network'],
    [new TimeoutError('closeAndFlush'), 'close_timeout'],
    [new ServiceUnavailableError('/v1/batch: the service is down', 503), 'service_unavailable'],
    [new Error('other'), 'error'],
  ])('failure %p is %s', (error, reason) => {
    expect(failureReason(error)).toBe(reason)
  })

  it('names a retry by its status, else by its timeout or network error', () => {
    expect(retryReason({ path: '/v1/batch', attempt: 1, delayMs: 0, status: 503 })).toBe('503')
    expect(retryReason({ path: '/v1/batch', attempt: 1, delayMs: 0, error: new AttemptTimeout('timed out after 5 ms') })).toBe('timeout')
    expect(retryReason({ path: '/v1/batch', attempt: 1, delayMs: 0, error: new Error('socket hang up') })).toBe('network')
  })
})
