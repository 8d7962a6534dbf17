import * as v8 from 'node:v8'
import * as vm from 'node:vm'
import { setTimerRef } from '../platform/runtime'

/**
 * Peak RSS `eventrail import` aims to stay near, in bytes. An import makes garbage fast (a parsed
 * line, a request body, per message), and V8 lets its old generation grow well past what is live
 * before it collects it: 160-200 MB of RSS for ~30 MB of live data (bench:import). Past this
 * budget the command asks for a full collection.
 */
export const IMPORT_RSS_BUDGET_BYTES = 128 * 1024 * 1024

// How often RSS is read (a cheap read of the process's own stats), and the least time between two
// collections: each costs a few ms with an import's heap (at most ~5 % of the time).
const CHECK_EVERY_MS = 50
const MIN_GAP_MS = 150

/**
 * Keeps the process near `budget` bytes of RSS while it runs: every {@link CHECK_EVERY_MS} ms, past
 * the budget, a full garbage collection. For the CLI only (the process is the import's own): a
 * library never collects for its host. Where V8's `gc` cannot be had (a runtime without
 * `--expose-gc` at run time), it does nothing. Returns the function that stops it.
 */
export function keepMemoryNear(budget: number, probes: MemoryProbes = {}): () => void {
  const collect = 'collect' in probes ? probes.collect : loadGc()
  const rss = probes.rss ?? (() => process.memoryUsage.rss())
  if (collect === undefined) return () => {}
  let lastMs = -Infinity
  const timer = setInterval(() => {
    const now = Date.now()
    if (now - lastMs < MIN_GAP_MS || rss() <= budget) return
    lastMs = now
    collect()
  }, CHECK_EVERY_MS)
  setTimerRef(timer, false)
  return () => clearInterval(timer)
}

/** What {@link keepMemoryNear} reads and calls (tests give their own). */
export interface MemoryProbes {
  /** The process's RSS, in bytes. */
  readonly rss?: () => number
  /** A full collection; undefined for none to be had. Default: V8's `gc` (see {@link loadGc}). */
  readonly collect?: (() => void) | undefined
}

/** V8's own `gc`, exposed to a fresh context (the flag only applies to contexts made after it); undefined where it cannot be had. */
export function loadGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc: unknown = vm.runInNewContext('gc')
    return typeof gc === 'function' ? (gc as () => void) : undefined
  } catch {
    return undefined
  }
}
