import { ValidationError } from '../core/errors'
import { hasClassField } from '../core/own-options'
import { VERSION } from '../core/version'

/**
 * Options of analytics-node 6 and @segment/analytics-node 3 that this client has under another
 * name or not at all, and what to write instead. Checked only once an option is found unknown.
 */
const OTHER_SDK_OPTIONS: Readonly<Record<string, string>> = {
  writeKey: 'the write key is the first argument: new Analytics(writeKey, options)',
  path: 'the paths are fixed (/v1/batch, /v1/alias); a proxy\'s path prefix goes in "host"',
  disable: 'write "enable: false"',
  maxEventsInBatch: 'write "flushAt"',
  httpRequestTimeout: 'write "timeout"',
  retryCount: 'write "maxRetries"',
  httpClient: 'pass a fetch function as "fetch" (see docs/proxies-and-transports.md)',
  axiosConfig: 'pass a fetch function as "fetch" (see docs/proxies-and-transports.md)',
  axiosInstance: 'pass a fetch function as "fetch" (see docs/proxies-and-transports.md)',
  axiosRetryConfig: 'write "maxRetries", "retryDelay" and "maxRetryDelay"',
  maxTotalBackoffDuration: 'write "maxRetryTime", in milliseconds',
  maxRateLimitDuration: 'write "maxRetryTime", in milliseconds',
  oauthSettings: 'OAuth is not supported: the write key is the only credential',
}

/**
 * The error for the first option of `options` that is not in `known` (and whose value is not
 * `undefined`), naming the closest known option or, for another SDK's option, what to write
 * instead; `undefined` when every option is known.
 */
export function unknownOptionError(options: object, known: readonly string[]): ValidationError | undefined {
  for (const name of Object.keys(options)) {
    if (known.includes(name) || (options as Record<string, unknown>)[name] === undefined) continue
    const other = Object.hasOwn(OTHER_SDK_OPTIONS, name) ? OTHER_SDK_OPTIONS[name] : undefined
    const closest = other === undefined ? closestName(name, known) : undefined
    const hint =
      other !== undefined
        ? `is not an option of this client (it is another SDK's): ${other}`
        : closest !== undefined
          ? `is not an option: did you mean "${closest}"?`
          : `is not an option of eventrail ${VERSION}; the options are ${known.join(', ')}`
    return new ValidationError(name, hint, 'Analytics')
  }
  return undefined
}

/**
 * The error for an option that the options object has only from its class (a getter or a method
 * of its prototype, not `Object.prototype`): only own fields are read (a polluted prototype must
 * never be an option), and ignoring it without a word would lose it. `undefined` when there is none.
 */
export function inheritedOptionError(options: object, known: readonly string[]): ValidationError | undefined {
  const name = known.find((option) => !Object.hasOwn(options, option) && hasClassField(options, option))
  if (name === undefined) return undefined
  return new ValidationError(
    name,
    `is inherited from the options object's class: only own fields are read; pass a plain object ({ ${name}: config.${name}, … })`,
    'Analytics',
  )
}

/**
 * The error for `new Analytics({ writeKey, ...options })`, the constructor of
 * @segment/analytics-node: what was recognised and the call to write instead. The write key's
 * value is never echoed.
 */
export function writeKeyObjectError(value: object): ValidationError {
  const others = Object.keys(value).filter((name) => name !== 'writeKey')
  const options = others.length === 0 ? '' : `, { ${others.join(', ')} }`
  return new ValidationError(
    'writeKey',
    `must be the first argument, a string: got an object with "writeKey" (the constructor of @segment/analytics-node); write new Analytics(writeKey${options})`,
    'Analytics',
  )
}

/** The known name closest to `name` (case ignored), when it is close enough to be a typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  // Two letters in five (at least 2) may differ: "flushInteval", "maxRetry", "compresss"; "telemetry" is nothing.
  return bestDistance <= Math.max(2, Math.ceil(name.length * 0.4)) ? best : undefined
}

// Levenshtein distance: insertions, deletions and substitutions, one row at a time.
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]
}
