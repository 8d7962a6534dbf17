import { z } from 'zod'
import type { AnalyticsOptions, Plugin } from '../../src'
import { definePlan } from '../../src/plan'
import type { Rng } from './rng'

/** What a message is meant to meet on its way; encoded in its messageId so that plugins can read it. */
export type Fate = 'ok' | 'invalid' | 'planViolation' | 'pluginDrop' | 'pluginThrow' | 'pluginSlow'

/** One configuration of the client that the model runs sequences against. */
export interface ModelConfig {
  readonly name: string
  /** `spool: { dir }` in a temporary directory. */
  readonly spool: boolean
  /** A plugin that drops (`null`), throws or (async) is late, as each message's fate says. */
  readonly plugins?: 'sync' | 'async'
  /** A tracking plan made with zod, checked in this mode. */
  readonly planMode?: 'report' | 'drop' | 'throw'
  /**
   * `fallbackHosts: [a second fault server]` whose mode lags the primary's by one switch (it takes
   * the mode the primary leaves): each host goes down at its own time, and both at once when the
   * primary's mode repeats (issue 32, part 6).
   */
  readonly fallback?: boolean
}

/** Every configuration of issue 34, item 3, plus one that combines the spool, async plugins and a plan. */
export const CONFIGS: readonly ModelConfig[] = [
  { name: 'memory', spool: false },
  { name: 'spool', spool: true },
  { name: 'plugins-sync', spool: false, plugins: 'sync' },
  { name: 'plugins-async', spool: false, plugins: 'async' },
  { name: 'plan-report', spool: false, planMode: 'report' },
  { name: 'plan-drop', spool: false, planMode: 'drop' },
  { name: 'plan-throw', spool: false, planMode: 'throw' },
  { name: 'spool+plugins-async+plan-drop', spool: true, plugins: 'async', planMode: 'drop' },
  { name: 'fallback', spool: false, fallback: true },
  { name: 'spool+fallback', spool: true, fallback: true },
]

/** The fates a configuration can give a message. */
export function fatesOf(config: ModelConfig): Fate[] {
  const fates: Fate[] = ['ok', 'invalid']
  if (config.planMode !== undefined) fates.push('planViolation')
  if (config.plugins !== undefined) fates.push('pluginDrop', 'pluginThrow')
  if (config.plugins === 'async') fates.push('pluginSlow')
  return fates
}

/** The fate a messageId carries: `m<seed>-<n>-<fate>`. */
export function fateOf(messageId: string): Fate {
  return messageId.slice(messageId.lastIndexOf('-') + 1) as Fate
}

/** Longest a plugin's promise may take (the `pluginTimeout` option); a `pluginSlow` message takes longer. */
export const PLUGIN_TIMEOUT_MS = 120

/** Reads each message's fate from its id: drops it (`null`), throws, or lets it go, at once or after a delay. */
export function fatePlugin(mode: 'sync' | 'async'): Plugin {
  return {
    name: 'model-fate',
    process(message) {
      const fate = fateOf(String(message.messageId))
      const act = (): null | undefined => {
        if (fate === 'pluginDrop') return null
        if (fate === 'pluginThrow') throw new Error('model plugin throws, as the message asked')
        return undefined
      }
      if (mode === 'sync') return act()
      const delay = fate === 'pluginSlow' ? PLUGIN_TIMEOUT_MS * 2 : messageId0to20(String(message.messageId))
      return new Promise((resolve, reject) =>
        setTimeout(() => {
          try {
            resolve(act())
          } catch (err) {
            reject(err)
          }
        }, delay),
      )
    },
  }
}

// A delay from 0 to 20 ms that depends on the message only (no shared random state).
function messageId0to20(id: string): number {
  let hash = 0
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0
  return hash % 21
}

/** The event every track call of the model sends; `properties.n` must be a number. */
export const EVENT = 'Model Event'

/** The plan: track `Model Event` with a numeric `n`; identify traits with an optional string `email`. */
export const MODEL_PLAN = definePlan({
  events: { [EVENT]: z.object({ n: z.number() }) },
  traits: z.object({ email: z.string().optional() }),
})

/** The options of a run: short timeouts and retries so that a run takes a second or two. */
export function clientOptions(
  config: ModelConfig,
  host: string,
  rng: Rng,
  spoolDir: string | undefined,
  fallbackHost?: string,
): AnalyticsOptions {
  const options: AnalyticsOptions = {
    host,
    ...(fallbackHost === undefined ? {} : { fallbackHosts: [fallbackHost] }),
    flushAt: rng.int(1, 12),
    flushInterval: rng.int(10, 80),
    timeout: rng.int(80, 200),
    retryDelay: rng.int(1, 10),
    maxRetryDelay: 40,
    maxRetryTime: rng.int(300, 900),
    ...(rng.chance(0.5) ? { maxInFlight: rng.int(1, 4) } : {}),
  }
  if (config.spool) options.spool = { dir: spoolDir as string }
  if (config.plugins !== undefined) {
    options.plugins = [fatePlugin(config.plugins)]
    options.pluginTimeout = PLUGIN_TIMEOUT_MS
  }
  if (config.planMode !== undefined) {
    options.plan = MODEL_PLAN
    options.planMode = config.planMode
  }
  return options
}

/** The message of a call: valid, invalid, or breaking the plan, as `fate` says; its id tells plugins its fate. */
export function messageFor(method: 'track' | 'identify' | 'alias', fate: Fate, messageId: string, n: number): Record<string, unknown> {
  const invalid = fate === 'invalid'
  const breaks = fate === 'planViolation'
  if (method === 'track') {
    return { userId: `u${n % 7}`, messageId, ...(invalid ? {} : { event: EVENT }), properties: { n: breaks ? 'not a number' : n } }
  }
  if (method === 'identify')
    return { messageId, ...(invalid ? {} : { userId: `u${n % 7}` }), traits: { email: breaks ? 5 : 'a@example.com' } }
  return { messageId, userId: `u${n % 7}`, ...(invalid ? {} : { previousId: `anon-${n}` }) }
}
