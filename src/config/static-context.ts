import { ValidationError } from '../core/errors'
import { describeThrown, describeValue } from '../core/describe'
import { LIBRARY_NAME, VERSION } from '../core/version'

/** The `context` option, checked once: merged into every message's context at normalization. */
export interface StaticContext {
  /** The option as JSON text: each message that a plugin may change gets its own copy of it. */
  readonly json: string
  /** A message's context when it has none of its own and no plugin runs: shared, frozen. */
  readonly shared: Readonly<Record<string, unknown>>
}

/**
 * Checks the `context` option: a plain object of JSON values, without `library` (the client sets
 * it). `undefined` when not given.
 * @throws ValidationError naming the option and the rule.
 */
export function checkStaticContext(value: unknown): StaticContext | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(
      'context',
      `must be an object such as { app: { name: 'api', version: '1.4.0' } }, got ${describeValue(value)}`,
      'Analytics',
    )
  }
  if (Object.hasOwn(value, 'library')) {
    throw new ValidationError('context', 'must not set "library" (the client sets it to its own name and version)', 'Analytics')
  }
  let json: string
  try {
    json = JSON.stringify(value)
  } catch (err) {
    throw new ValidationError('context', `must be serializable as JSON (${describeThrown(err)})`, 'Analytics')
  }
  return Object.freeze({ json, shared: deepFreeze({ library: libraryInfo(), ...(JSON.parse(json) as object) }) })
}

/** eventrail's `context.library`: a new object each call, so that a plugin may change it. */
export function libraryInfo(): { name: string; version: string } {
  return { name: LIBRARY_NAME, version: VERSION }
}

/**
 * The context a message goes out with: `library`, then the option's fields, then the message's own
 * (a field of the message's own context replaces the option's field of the same name, whole).
 * `fresh`: the result is the message's alone (plugins may change it); otherwise, a message without
 * a context of its own shares one frozen object.
 */
export function mergeContext(base: StaticContext | undefined, own: unknown, fresh: boolean): Record<string, unknown> {
  const hasOwn = typeof own === 'object' && own !== null
  if (base === undefined) return hasOwn ? { library: libraryInfo(), ...own } : { library: libraryInfo() }
  if (!fresh && !hasOwn) return base.shared
  const copy = JSON.parse(base.json) as Record<string, unknown>
  return hasOwn ? { library: libraryInfo(), ...copy, ...own } : { library: libraryInfo(), ...copy }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}
