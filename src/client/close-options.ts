import { ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'
import { MAX_TIMER_MS } from '../core/limits'
import { ownOptions } from '../core/own-options'

/** Options of {@link Analytics.closeAndFlush}. */
export interface CloseOptions {
  /**
   * Milliseconds to wait for every message to have an outcome; past it the rest fail with a
   * `TimeoutError`. Default: no limit other than the retry limits.
   */
  timeout?: number
}

/**
 * The `closeAndFlush` deadline in ms (undefined: none), or the error that refuses `given`: not an
 * object (`closeAndFlush(5000)` names `{ timeout: 5000 }`), or a `timeout` a timer cannot wait.
 * Own fields only, read once: an inherited `timeout` (a polluted Object.prototype) is not the caller's.
 */
export function closeTimeoutOf(given: unknown): { readonly timeoutMs: number | undefined } | ValidationError {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    const example = typeof given === 'number' ? `closeAndFlush({ timeout: ${given} })` : 'closeAndFlush({ timeout: 5000 })'
    return new ValidationError('options', `must be an object { timeout? } (got ${describeValue(given)}): write ${example}`, 'closeAndFlush')
  }
  let timeout: unknown
  try {
    timeout = ownOptions(given, 'options', 'closeAndFlush').timeout
  } catch (err) {
    return err as ValidationError
  }
  // A timer cannot wait past 2^31-1 ms (it would fire at once); Infinity means no limit.
  if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout >= 0) || (timeout > MAX_TIMER_MS && timeout !== Infinity))) {
    return new ValidationError(
      'timeout',
      `must be a number from 0 to ${MAX_TIMER_MS} (milliseconds), or Infinity for no limit`,
      'closeAndFlush',
    )
  }
  return { timeoutMs: timeout === Infinity ? undefined : timeout }
}

/**
 * What `flush(given)` asks when `given` is not a callback: @segment/analytics-node's
 * `flush({ close: true, timeout })` is a close (its options for `closeAndFlush`); anything else is
 * refused, naming what to write instead.
 */
export function flushArgumentOf(given: unknown): { readonly close: CloseOptions } | ValidationError {
  let fields: Readonly<Record<string | symbol, unknown>> | undefined
  if (typeof given === 'object' && given !== null && !Array.isArray(given)) {
    try {
      fields = ownOptions(given, 'options', 'flush')
    } catch (err) {
      return err as ValidationError
    }
  }
  if (fields !== undefined && fields.close === true && Object.keys(fields).every((key) => key === 'close' || key === 'timeout')) {
    return { close: fields.timeout === undefined ? {} : { timeout: fields.timeout as number } }
  }
  const rule =
    fields === undefined
      ? `takes an optional callback (err, batch) => void (got ${describeValue(given)})`
      : 'takes an optional callback, not options: flush() waits for every message queued before it; to stop intake and bound the wait, call closeAndFlush({ timeout })'
  return new ValidationError('callback', rule, 'flush')
}
