import { ValidationError } from '../core/errors'
import { ownOptions } from '../core/own-options'
import { runtimeDescription } from '../platform/runtime'

/**
 * The `spool` option: messages are written to files in `dir` before the call returns, so that
 * what the client accepted survives `kill -9`, a crash, a restart and a long outage. See the
 * README, "A disk spool".
 */
export interface SpoolOptions {
  /**
   * The directory (made when missing, readable by its owner only). Clients that share it (Node
   * cluster workers, PM2 instances, containers on one volume) each write their own part of it, and
   * a client takes over the part of one that is gone.
   */
  dir: string
  /**
   * Most bytes the spool's files may take; past it a message is refused with a `QueueFullError`.
   * At least 1 MiB.
   * @defaultValue 1 GiB
   */
  maxBytes?: number
}

/** The `spool` option, checked. */
export interface ResolvedSpool {
  readonly dir: string
  readonly maxBytes: number
  /** Tests only: a file system to use instead of `node:fs` (see `SPOOL_FS`). */
  readonly fs: unknown
}

/**
 * Tests only: the key of a `spool` option's file system (`{ dir, [SPOOL_FS]: fs }`), to make a
 * disk that fails at will. Not part of the API.
 * @internal
 */
export const SPOOL_FS: unique symbol = Symbol.for('eventrail.spoolFs') as never

const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
const MIN_MAX_BYTES = 1024 * 1024

/** Checks the `spool` option; undefined when it is not given. */
export function spoolOption(value: unknown): ResolvedSpool | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('spool', 'must be an object: { dir, maxBytes? }', 'Analytics')
  }
  // Own fields only, each read once (see ownOptions): the checks below and the spool read this copy.
  const o = ownOptions(value, 'spool', 'Analytics') as Record<string | symbol, unknown>
  for (const key of Object.keys(o)) {
    if (key !== 'dir' && key !== 'maxBytes')
      throw new ValidationError(`spool.${key}`, 'is not an option of the spool (dir, maxBytes)', 'Analytics')
  }
  if (typeof o.dir !== 'string' || o.dir.trim() === '' || o.dir.includes('\0')) {
    throw new ValidationError('spool.dir', 'is required and must be the path of a directory (a non-empty string)', 'Analytics')
  }
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < MIN_MAX_BYTES) {
    throw new ValidationError('spool.maxBytes', `must be an integer of at least ${MIN_MAX_BYTES} (1 MiB)`, 'Analytics')
  }
  const runtime = runtimeDescription()
  if (runtime === 'workerd' || runtime === 'edge-runtime' || runtime === 'unknown') {
    throw new ValidationError(
      'spool',
      `needs a local disk that outlives the process: Node, Bun or Deno; not ${runtime === 'unknown' ? 'this runtime' : runtime} (flush() or waitUntil there)`,
      'Analytics',
    )
  }
  return Object.freeze({ dir: o.dir, maxBytes, fs: o[SPOOL_FS] })
}
