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
  /**
   * Dead letters, kept: messages the service refuses for good (400, 413 for a message alone, 422,
   * or one that keeps failing alone while others get through) are appended, with the status and
   * reason, to a file of the spool directory (`rejected-<tenant>.jsonl`) instead of being gone.
   * `true` keeps up to 8 MiB a write key and host; `{ maxBytes }` sets the bound (past it the oldest
   * are dropped and counted). `eventrail spool inspect DIR` shows them, and
   * `eventrail spool export --rejected DIR` writes them out for `eventrail import` once the cause
   * is fixed. Their callbacks still get the error: a dead letter is a copy, not a retry.
   * @defaultValue false
   * @example
   * new Analytics(key, { spool: { dir: '/var/lib/app/analytics', keepRejected: { maxBytes: 32 * 1024 * 1024 } } })
   */
  keepRejected?: boolean | { maxBytes?: number }
}

/** The `spool` option, checked. */
export interface ResolvedSpool {
  readonly dir: string
  readonly maxBytes: number
  /** Tests only: a file system to use instead of `node:fs` (see `SPOOL_FS`). */
  readonly fs: unknown
  /** The dead-letter file's bound; undefined when messages refused for good are not kept. */
  readonly keepRejected: { readonly maxBytes: number } | undefined
}

/**
 * Tests only: the key of a `spool` option's file system (`{ dir, [SPOOL_FS]: fs }`), to make a
 * disk that fails at will. Not part of the API.
 * @internal
 */
export const SPOOL_FS: unique symbol = Symbol.for('eventrail.spoolFs') as never

const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
const MIN_MAX_BYTES = 1024 * 1024
const SPOOL_FIELDS = ['dir', 'maxBytes', 'keepRejected']
/** `keepRejected: true`: the dead-letter files of a write key and host take at most this. */
export const DEFAULT_REJECTED_BYTES = 8 * 1024 * 1024
// Two generations of at least 64 KiB each hold a message of 32 KB with its reason; at most what
// the readers of the file read (`MAX_REJECTED_FILE_BYTES` a generation).
const MIN_REJECTED_BYTES = 128 * 1024
const MAX_REJECTED_BYTES = 512 * 1024 * 1024

/** Checks the `spool` option; undefined when it is not given. */
export function spoolOption(value: unknown): ResolvedSpool | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('spool', 'must be an object: { dir, maxBytes?, keepRejected? }', 'Analytics')
  }
  // Own fields only, each read once (see ownOptions): the checks below and the spool read this copy.
  const o = ownOptions(value, 'spool', 'Analytics') as Record<string | symbol, unknown>
  for (const key of Object.keys(o)) {
    if (!SPOOL_FIELDS.includes(key))
      throw new ValidationError(`spool.${key}`, `is not an option of the spool (${SPOOL_FIELDS.join(', ')})`, 'Analytics')
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
  return Object.freeze({ dir: o.dir, maxBytes, fs: o[SPOOL_FS], keepRejected: keepRejectedOption(o.keepRejected) })
}

function keepRejectedOption(value: unknown): { readonly maxBytes: number } | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true) return Object.freeze({ maxBytes: DEFAULT_REJECTED_BYTES })
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ValidationError('spool.keepRejected', 'must be true, false or an object: { maxBytes? }', 'Analytics')
  const o = ownOptions(value, 'spool.keepRejected', 'Analytics') as Record<string, unknown>
  for (const key of Object.keys(o)) {
    if (key !== 'maxBytes')
      throw new ValidationError(`spool.keepRejected.${key}`, 'is not an option of keepRejected (maxBytes)', 'Analytics')
  }
  const maxBytes = o.maxBytes ?? DEFAULT_REJECTED_BYTES
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < MIN_REJECTED_BYTES || maxBytes > MAX_REJECTED_BYTES)
    throw new ValidationError(
      'spool.keepRejected.maxBytes',
      `must be an integer from ${MIN_REJECTED_BYTES} (128 KiB) to ${MAX_REJECTED_BYTES} (512 MiB)`,
      'Analytics',
    )
  return Object.freeze({ maxBytes })
}
