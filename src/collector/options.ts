import { ValidationError } from '../core/errors'
import { ownOptions } from '../core/own-options'
import { readCollectorPlan, type CollectorPlan } from './plan-check'
import type { CollectorOptions } from './types'

/** {@link CollectorOptions} checked once, with every default filled in. */
export interface ResolvedCollectorOptions {
  readonly port: number
  readonly host: string
  /** `undefined`: any non-empty write key is accepted. */
  readonly writeKeys: ReadonlySet<string> | undefined
  readonly destinations: readonly string[]
  readonly historicalDestinations: ReadonlySet<string>
  readonly historicalAfterMs: number
  readonly out: string | undefined
  readonly maxMessages: number
  readonly maxMessageBytes: number
  readonly maxRequests: number
  /** The tracking plan to check messages against, or undefined. */
  readonly plan: CollectorPlan | undefined
}

/** Defaults of every collector option, in one place. */
export const COLLECTOR_DEFAULTS = Object.freeze({
  port: 0,
  host: '127.0.0.1',
  historicalAfterMs: 5 * 60 * 1000,
  maxMessages: 10_000,
  maxMessageBytes: 8 * 1024 * 1024,
  maxRequests: 10_000,
})

const WHERE = 'createCollector'

/**
 * Checks the options of {@link createCollector} and fills in defaults.
 * @throws ValidationError naming the option and the rule it breaks.
 */
export function normalizeCollectorOptions(input: CollectorOptions = {}): ResolvedCollectorOptions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('options', 'must be an object', WHERE)
  }
  // Own fields only, each read once: an inherited `host` or `out` (a polluted Object.prototype) is never used.
  const options = ownOptions(input, 'options', WHERE) as CollectorOptions
  const port = options.port ?? COLLECTOR_DEFAULTS.port
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ValidationError('port', 'must be an integer from 0 to 65535', WHERE)
  }
  const host = options.host ?? COLLECTOR_DEFAULTS.host
  if (typeof host !== 'string' || host.trim() === '') {
    throw new ValidationError('host', 'must be a non-empty string such as "127.0.0.1"', WHERE)
  }
  const writeKeys = names(options.writeKeys, 'writeKeys')
  const destinations = names(options.destinations, 'destinations')
  const historical =
    options.historicalDestinations === undefined ? destinations : names(options.historicalDestinations, 'historicalDestinations')
  const unknown = historical.find((name) => !destinations.includes(name))
  if (unknown !== undefined) {
    throw new ValidationError('historicalDestinations', `must name destinations listed in "destinations" ("${unknown}" is not)`, WHERE)
  }
  if (options.out !== undefined && (typeof options.out !== 'string' || options.out === '')) {
    throw new ValidationError('out', 'must be a file path', WHERE)
  }
  return Object.freeze({
    port,
    host,
    writeKeys: writeKeys.length === 0 ? undefined : new Set(writeKeys),
    destinations,
    historicalDestinations: new Set(historical),
    historicalAfterMs: count(options.historicalAfterMs, 'historicalAfterMs', COLLECTOR_DEFAULTS.historicalAfterMs, 0),
    out: options.out,
    maxMessages: count(options.maxMessages, 'maxMessages', COLLECTOR_DEFAULTS.maxMessages, 1),
    maxMessageBytes: count(options.maxMessageBytes, 'maxMessageBytes', COLLECTOR_DEFAULTS.maxMessageBytes, 1),
    maxRequests: count(options.maxRequests, 'maxRequests', COLLECTOR_DEFAULTS.maxRequests, 1),
    plan: options.plan === undefined ? undefined : readCollectorPlan(options.plan, WHERE),
  })
}

function names(value: unknown, field: string): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name === '')) {
    throw new ValidationError(field, 'must be an array of non-empty strings', WHERE)
  }
  return [...new Set(value as string[])]
}

function count(value: unknown, field: string, fallback: number, min: number): number {
  const n = value ?? fallback
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
    throw new ValidationError(field, `must be an integer of at least ${min}`, WHERE)
  }
  return n
}
