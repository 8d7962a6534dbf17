import { isJsonObject } from './verdict'

/** What the routing rules need to know about the source's destinations. */
export interface RoutingRules {
  /** The destinations enabled for the source, by their documented (case-sensitive) names. */
  readonly destinations: readonly string[]
  /** The destinations that take historical data. */
  readonly historicalDestinations: ReadonlySet<string>
  /** How old a timestamp must be at reception for the message to count as historical, in ms. */
  readonly historicalAfterMs: number
}

/** Where an accepted message goes. */
export interface Route {
  /** The destinations that would receive the message, in configured order. */
  readonly destinations: string[]
  /** Whether the message is historical (it then reaches only destinations that take historical data). */
  readonly historical: boolean
}

/**
 * The destinations that `integrations` enables, by the wire spec's rules: all by default; a key
 * matches a destination name case-sensitively; `false` disables it; `All: false` disables every
 * destination not explicitly set to `true`. An options object counts as `true`, as it does for the
 * service. Keys that name no configured destination are ignored.
 * @example
 * ```ts
 * selectDestinations({ All: false, Mixpanel: true }, ['Amplitude', 'Mixpanel']) // ['Mixpanel']
 * ```
 */
export function selectDestinations(integrations: unknown, destinations: readonly string[]): string[] {
  if (!isJsonObject(integrations)) return [...destinations]
  const byDefault = integrations.All !== false
  return destinations.filter((name) => {
    if (!Object.hasOwn(integrations, name)) return byDefault
    const value = integrations[name]
    return value === true || isJsonObject(value)
  })
}

/**
 * Whether a message with this `timestamp`, received at `receivedAtMs`, is historical: its
 * timestamp is at least `historicalAfterMs` before it was received. No timestamp: not historical.
 */
export function isHistorical(timestamp: unknown, receivedAtMs: number, historicalAfterMs: number): boolean {
  if (typeof timestamp !== 'string') return false
  const ms = Date.parse(timestamp)
  return !Number.isNaN(ms) && receivedAtMs - ms >= historicalAfterMs
}

/**
 * Where an accepted message goes: the destinations its `integrations` select, cut down to those
 * that take historical data when the message is historical.
 */
export function routeMessage(message: Readonly<Record<string, unknown>>, rules: RoutingRules, receivedAtMs: number): Route {
  const selected = selectDestinations(message.integrations, rules.destinations)
  const historical = isHistorical(message.timestamp, receivedAtMs, rules.historicalAfterMs)
  return {
    destinations: historical ? selected.filter((name) => rules.historicalDestinations.has(name)) : selected,
    historical,
  }
}
