import { ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'

/**
 * Which proxies to believe about the client's address: `false` (the default) believes none (the
 * address is the connection's own); a number believes that many proxies in front of the server
 * (as Express's `trust proxy`: the address is the one that many hops back in `X-Forwarded-For`);
 * a function is asked about each address from the connection back, and the first it does not
 * trust is the client's. `X-Forwarded-For` is never read without it: anyone can send one.
 */
export type TrustProxy = boolean | number | ((address: string, hop: number) => boolean)

/** Checks the `trustProxy` option. @throws ValidationError naming it. */
export function checkTrustProxy(value: unknown): TrustProxy {
  if (value === undefined || value === false) return false
  if (value === true || typeof value === 'function') return value as TrustProxy
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value
  throw new ValidationError(
    'trustProxy',
    `must be false, true, a number of proxies (an integer of at least 0) or a function (address, hop) => boolean, got ${describeValue(value)}`,
    'contextFromRequest',
  )
}

/**
 * The client's address: the connection's (`remote`, when known), unless `trust` believes the
 * proxies that added `X-Forwarded-For` (`forwarded`, the header's value).
 */
export function clientAddress(remote: string | undefined, forwarded: string | undefined, trust: TrustProxy): string | undefined {
  if (trust === false || forwarded === undefined || forwarded === '') return remote
  // From the connection back: the connection's own address (unknown for a Fetch Request, whose
  // host is the first proxy), then what each proxy saw, nearest first.
  const chain: (string | undefined)[] = [remote]
  for (const part of forwarded.split(',').reverse()) if (part.trim() !== '') chain.push(part.trim())
  const last = chain.length - 1
  if (trust === true) return chain[last]
  if (typeof trust === 'number') return chain[Math.min(trust, last)]
  for (let hop = 0; hop < last; hop++) {
    const address = chain[hop]
    if (address !== undefined && !trust(address, hop)) return address
  }
  return chain[last]
}
