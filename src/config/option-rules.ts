import { ValidationError } from '../core/errors'
import { MAX_TIMER_MS } from '../core/limits'
import { DEFAULTS } from './options'

type Defaulted = keyof typeof DEFAULTS

// The host's trailing slashes go: paths (`/v1/batch`) are appended to it.
const TRAILING_SLASHES = /\/+$/
// One or more trailing `/v1` segments, each maybe with an endpoint: what the client appends itself.
const TRAILING_ENDPOINTS = /(?:\/+v1(?:\/+(?:batch|import|identify|track|page|screen|group|alias))?)+$/i

/**
 * Checks a host URL (`field` names it in the error: `host`, `fallbackHosts[1]`) and removes its
 * trailing slashes; `host` not given is the default host.
 */
export function hostOption(value: unknown, field = 'host'): string {
  if (value === undefined && field === 'host') return DEFAULTS.host
  const rule = 'must be an http(s) URL such as "https://api.segment.io"'
  if (typeof value !== 'string') throw new ValidationError(field, rule, 'Analytics')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ValidationError(field, rule, 'Analytics')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(field, rule, 'Analytics')
  // The write key is the only credential; one in the URL would be in every network error message.
  // (The value is never echoed in the error: it may hold a password.)
  if (url.username !== '' || url.password !== '') {
    throw new ValidationError(field, 'must not contain a user name or password (the write key is the only credential)', 'Analytics')
  }
  // Paths are appended to the host: a query string or a fragment, even an empty one, would swallow them.
  if (value.includes('?') || value.includes('#')) {
    throw new ValidationError(field, 'must not contain a query string or a fragment ("?" or "#")', 'Analytics')
  }
  const host = value.trim().replace(TRAILING_SLASHES, '')
  // Copied from the service's docs, "https://api.segment.io/v1" would request /v1/v1/batch (404).
  // Every trailing /v1 (and endpoint) segment goes from the suggestion ("…/v1/v1" → "…"), and
  // only the path is looked at (the host name "https://v1" is fine): the suggestion is accepted.
  const pathStart = host.indexOf('/', host.indexOf('//') + 2)
  const endpoint = pathStart < 0 ? null : TRAILING_ENDPOINTS.exec(host.slice(pathStart))
  if (endpoint !== null) {
    const bare = host.slice(0, pathStart + endpoint.index)
    throw new ValidationError(
      field,
      `must not end in "${endpoint[0]}": the client adds /v1/batch and /v1/alias itself; write "${bare}"`,
      'Analytics',
    )
  }
  return host
}

/**
 * The `fallbackHosts` option: each entry a host as `host` must be (the same rules), none the same
 * as `host` or as another entry, since the write key goes to each of them.
 */
export function fallbackHostsOption(value: unknown, host: string): readonly string[] {
  if (value === undefined) return NO_FALLBACK_HOSTS
  if (!Array.isArray(value)) {
    throw new ValidationError(
      'fallbackHosts',
      'must be an array of http(s) URLs such as ["https://events.eu1.segmentapis.com"]',
      'Analytics',
    )
  }
  const hosts: string[] = []
  for (let i = 0; i < value.length; i++) {
    // Own entries only: a hole would read Array.prototype[i] (a polluted prototype's host).
    const fallback = hostOption(Object.hasOwn(value, i) ? (value[i] as unknown) : undefined, `fallbackHosts[${i}]`)
    if (fallback === host || hosts.includes(fallback)) {
      throw new ValidationError(`fallbackHosts[${i}]`, 'must differ from "host" and from the other fallback hosts', 'Analytics')
    }
    hosts.push(fallback)
  }
  return Object.freeze(hosts)
}

const NO_FALLBACK_HOSTS: readonly string[] = Object.freeze([])

// A delay in milliseconds that a timer can wait: setTimeout fires at once past 2^31-1 ms (with a
// TimeoutOverflowWarning). `infinity`, when given, says what Infinity means for this option.
export function delayOption(o: Record<string, unknown>, name: Defaulted, min: number, infinity?: string): number {
  const value = o[name] ?? DEFAULTS[name]
  if (typeof value === 'number' && value === Infinity && infinity !== undefined) return value
  if (typeof value !== 'number' || Number.isNaN(value) || value < min || value > MAX_TIMER_MS) {
    const or = infinity === undefined ? '' : `, or ${infinity}`
    throw new ValidationError(name, `must be a number from ${min} to ${MAX_TIMER_MS} (milliseconds${or})`, 'Analytics')
  }
  return value
}

export function integerOption(o: Record<string, unknown>, name: Defaulted | 'maxInFlight', min: number): number {
  const value = o[name] ?? DEFAULTS[name as Defaulted]
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(name, `must be an integer of at least ${min}`, 'Analytics')
  }
  return value
}

export function numberOption(o: Record<string, unknown>, name: Defaulted, min: number, unit = 'milliseconds'): number {
  const value = o[name] ?? DEFAULTS[name]
  if (typeof value !== 'number' || Number.isNaN(value) || value < min) {
    throw new ValidationError(name, `must be a number of at least ${min} (${unit})`, 'Analytics')
  }
  return value
}

export function booleanOption(o: Record<string, unknown>, name: Defaulted): boolean {
  const value = o[name] ?? DEFAULTS[name]
  if (typeof value !== 'boolean') throw new ValidationError(name, 'must be a boolean', 'Analytics')
  return value
}

export function functionOption(o: Record<string, unknown>, name: string): unknown {
  const value = o[name]
  if (value !== undefined && typeof value !== 'function') {
    throw new ValidationError(name, 'must be a function', 'Analytics')
  }
  return value
}
