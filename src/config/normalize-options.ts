import { ValidationError } from '../core/errors'
import { ownOptions } from '../core/own-options'
import { buildPluginChain } from '../plugins/chain'
import { defaultPlanMode, type PlanMode } from '../plan/check'
import { resolvedPlanOf, type ResolvedPlan } from '../plan/resolved'
import { fixedInFlight } from '../flow-control/in-flight-limit'
import { inheritedOptionError, unknownOptionError, writeKeyObjectError } from './option-mistakes'
import { booleanOption, delayOption, fallbackHostsOption, functionOption, hostOption, integerOption, numberOption } from './option-rules'
import { ADAPTIVE_IN_FLIGHT, type AnalyticsOptions, type ResolvedOptions } from './options'
import { checkStaticContext } from './static-context'
import type { ErrorHandler, FetchLike } from '../core/types'
import { spoolOption } from './spool-option'

// One rule for null: an option given as `null` is not given (its default applies), whichever it
// is (a config read from JSON, `process.env.X ?? null`). It used to be accepted for some options
// and refused for others.
function withoutNulls(fields: Readonly<Record<string | symbol, unknown>>): Record<string, unknown> {
  const out = fields as Record<string, unknown>
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key]
  return out
}

/**
 * Checks the write key and the options and fills in defaults. An option given as `null` counts
 * as not given.
 * @throws ValidationError naming the option and the rule it breaks.
 */
export function normalizeOptions(writeKey: unknown, options: AnalyticsOptions = {}): ResolvedOptions {
  if (typeof writeKey === 'object' && writeKey !== null && Object.hasOwn(writeKey, 'writeKey')) throw writeKeyObjectError(writeKey)
  if (typeof writeKey !== 'string' || writeKey.trim() === '') {
    throw new ValidationError('writeKey', 'is required and must be a non-empty string', 'Analytics')
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError('options', 'must be an object', 'Analytics')
  }
  // Read once, own fields only: an inherited `host` (a polluted Object.prototype) is never used.
  const o = withoutNulls(ownOptions(options, 'options', 'Analytics'))
  const unknown = unknownOptionError(o, KNOWN_OPTIONS) ?? inheritedOptionError(options, KNOWN_OPTIONS)
  if (unknown !== undefined) throw unknown
  const host = hostOption(o.host)
  return Object.freeze({
    writeKey,
    host,
    fallbackHosts: fallbackHostsOption(o.fallbackHosts, host),
    flushAt: integerOption(o, 'flushAt', 1),
    flushIntervalMs: delayOption(o, 'flushInterval', 0, 'Infinity for no timed flushes'),
    enable: booleanOption(o, 'enable'),
    errorHandler: functionOption(o, 'errorHandler') as ErrorHandler | undefined,
    fetch: functionOption(o, 'fetch') as FetchLike | undefined,
    timeoutMs: delayOption(o, 'timeout', 1),
    maxRetries: integerOption(o, 'maxRetries', 0),
    retryBaseMs: delayOption(o, 'retryDelay', 0),
    retryCapMs: delayOption(o, 'maxRetryDelay', 0),
    maxRetryTimeMs: delayOption(o, 'maxRetryTime', 0, 'Infinity for no limit but maxRetries'),
    maxQueueSize: integerOption(o, 'maxQueueSize', 1),
    maxQueueBytes: integerOption(o, 'maxQueueBytes', 1),
    inFlight: o.maxInFlight === undefined ? ADAPTIVE_IN_FLIGHT : fixedInFlight(integerOption(o, 'maxInFlight', 1)),
    maxRequestsPerSecond: numberOption(o, 'maxRequestsPerSecond', 1, 'requests per second'),
    compress: booleanOption(o, 'compress'),
    waitUntil: functionOption(o, 'waitUntil') as ((promise: Promise<unknown>) => void) | undefined,
    plugins: buildPluginChain(o.plugins),
    pluginTimeoutMs: delayOption(o, 'pluginTimeout', 1),
    context: checkStaticContext(o.context),
    ...planOptions(o.plan, o.planMode),
    spool: spoolOption(o.spool),
  })
}

function planOptions(value: unknown, mode: unknown): { plan: ResolvedPlan | undefined; planMode: PlanMode } {
  if (mode !== undefined && mode !== 'off' && mode !== 'report' && mode !== 'drop' && mode !== 'throw') {
    throw new ValidationError('planMode', 'must be "off", "report", "drop" or "throw"', 'Analytics')
  }
  // The environment is read only for a plan: Deno refuses env access without --allow-env.
  if (value === undefined) return { plan: undefined, planMode: mode ?? 'off' }
  const planMode = mode ?? defaultPlanMode()
  const plan = resolvedPlanOf(value)
  if (plan === undefined) throw new ValidationError('plan', "must be a plan made with definePlan() from 'eventrail/plan'", 'Analytics')
  return { plan: planMode === 'off' ? undefined : plan, planMode }
}

/**
 * The name of every option, one a line; `normalizeOptions` refuses any other name, naming the
 * closest. The type makes the compiler refuse this list when an option of {@link AnalyticsOptions}
 * is missing from it: adding an option is adding its line here.
 */
const OPTION_NAMES: { readonly [Name in keyof Required<AnalyticsOptions>]: true } = {
  host: true,
  fallbackHosts: true,
  flushAt: true,
  flushInterval: true,
  enable: true,
  errorHandler: true,
  fetch: true,
  timeout: true,
  maxRetries: true,
  retryDelay: true,
  maxRetryDelay: true,
  maxRetryTime: true,
  maxQueueSize: true,
  maxQueueBytes: true,
  maxInFlight: true,
  maxRequestsPerSecond: true,
  compress: true,
  waitUntil: true,
  plugins: true,
  pluginTimeout: true,
  context: true,
  plan: true,
  planMode: true,
  spool: true,
}

/** Every option's name, in the order of {@link AnalyticsOptions}. */
export const KNOWN_OPTIONS: readonly string[] = Object.freeze(Object.keys(OPTION_NAMES))
