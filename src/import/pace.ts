import { ValidationError } from '../core/errors'
import type { ImportOptions } from './types'

/** Import options after defaults and checks. */
export interface ResolvedImportOptions {
  readonly maxPending: number
  readonly maxPendingBytes: number
  readonly rate: number | undefined
  readonly drainTimeoutMs: number | undefined
  readonly strict: boolean
  readonly progressIntervalMs: number
  readonly firstPosition: number
}

/** Defaults of the import's bounds: far under the client's own (500,000 messages, 256 MiB), and enough to keep 500 KB requests in flight. */
export const IMPORT_DEFAULTS = Object.freeze({ maxPending: 10_000, maxPendingBytes: 32 * 1024 * 1024, progressInterval: 1000 })

/**
 * Checks the options of an import and fills in defaults.
 * @throws ValidationError naming the option and the rule it breaks.
 */
export function resolveImportOptions(options: ImportOptions): ResolvedImportOptions {
  if (typeof options !== 'object' || options === null) throw new ValidationError('options', 'must be an object', 'importMessages')
  for (const name of ['messageId', 'onProgress', 'onIssue'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new ValidationError(name, 'must be a function', 'importMessages')
    }
  }
  return {
    maxPending: number(options.maxPending ?? IMPORT_DEFAULTS.maxPending, 'maxPending', 1, true),
    maxPendingBytes: number(options.maxPendingBytes ?? IMPORT_DEFAULTS.maxPendingBytes, 'maxPendingBytes', 1, true),
    rate: options.rate === undefined ? undefined : number(options.rate, 'rate', Number.MIN_VALUE, false),
    drainTimeoutMs: options.drainTimeout === undefined ? undefined : number(options.drainTimeout, 'drainTimeout', 0, false),
    strict: options.strict ?? false,
    progressIntervalMs: number(options.progressInterval ?? IMPORT_DEFAULTS.progressInterval, 'progressInterval', 1, false),
    firstPosition: number(options.firstPosition ?? 1, 'firstPosition', 1, true),
  }
}

function number(value: unknown, name: string, min: number, integer: boolean): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || (integer && !Number.isSafeInteger(value))) {
    const what = integer
      ? `an integer of at least ${min}`
      : min === Number.MIN_VALUE
        ? 'a number greater than 0'
        : `a number of at least ${min}`
    throw new ValidationError(name, `must be ${what}`, 'importMessages')
  }
  return value
}

/**
 * Milliseconds to wait before handing over one more message, so that no more than `rate`
 * messages a second go out since `startMs`. Pure: the caller passes the clock.
 */
export function rateDelayMs(startMs: number, handed: number, rate: number, nowMs: number): number {
  return Math.max(0, startMs + (handed * 1000) / rate - nowMs)
}
