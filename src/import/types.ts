import type { MessageType } from '../core/types'

/**
 * What {@link importMessages} takes: a message object with a `type` field (`identify`, `track`,
 * `page`, `screen`, `group` or `alias`) and that type's fields, one line of JSON text holding such
 * an object, or a record of the file that `eventrail dev --out` writes (its `message` is imported).
 */
export type ImportSource = Record<string, unknown> | string

/** Options of {@link importMessages}. Every one is optional. */
export interface ImportOptions {
  /**
   * Most messages handed to the client and still without an outcome. Reading pauses at this bound
   * (backpressure), so memory stays flat whatever the size of the source. Keep it well under the
   * client's `maxQueueSize`.
   * @defaultValue 10000
   */
  maxPending?: number
  /**
   * Most bytes (of JSON text lines; message objects are counted by number only) handed to the
   * client and still without an outcome. Keep it well under the client's `maxQueueBytes`.
   * @defaultValue 33554432 (32 MiB)
   */
  maxPendingBytes?: number
  /** Most messages handed to the client per second. Default: no cap other than the client's own limits. */
  rate?: number
  /**
   * The message id of an item without one. Default: for a line of JSON text, a UUID-shaped hash
   * of the line's bytes and its position, the same in every run, so that the service can
   * de-duplicate a run that is repeated or resumed; for a message object, the client's own
   * random id. Return `undefined` to let the client pick one. An item for which it throws, or
   * returns anything but a string or `undefined`, is refused (the reason names the option).
   */
  messageId?: (message: Readonly<Record<string, unknown>>, position: number) => string | undefined
  /**
   * Stops the import: nothing more is read, messages already handed to the client get their
   * outcome (they are flushed at once), then the promise resolves with `aborted: true`.
   */
  signal?: AbortSignal
  /** Milliseconds to wait, once stopped or aborted, for the messages in flight; then the import resolves without them. Default: no limit. */
  drainTimeout?: number
  /** Stop at the first refused item (the import then resolves with `stoppedAt`). @defaultValue false */
  strict?: boolean
  /** Called with a snapshot of the counts every `progressInterval` ms and once at the end. */
  onProgress?: (progress: ImportProgress) => void
  /** Milliseconds between two `onProgress` calls. @defaultValue 1000 */
  progressInterval?: number
  /** Called once for each item that was refused (invalid) or failed (not delivered). */
  onIssue?: (issue: ImportIssue) => void
  /** Position of the first item, for a source that does not start at the beginning (a resumed file: the line after the checkpoint). @defaultValue 1 */
  firstPosition?: number
  /**
   * `false` skips the client's plugins for this import (its `context` option still applies): lines
   * are then sent as written again, the fastest way, when the client has no `context` option.
   * Plugins see imported messages with `info.via === 'import'`.
   * @defaultValue true
   */
  plugins?: boolean
}

/** An item that was not delivered: its position (line number), what happened and why. */
export interface ImportIssue {
  /** 1-based position of the item in the source (the line number of a file). */
  readonly position: number
  /** `refused`: invalid (bad JSON, a missing field, over 32 KB), never sent. `failed`: its request failed for good. */
  readonly outcome: 'refused' | 'failed'
  /** The message type, when the item had a valid one. */
  readonly type?: MessageType
  /** Why, in words: the error's message. */
  readonly reason: string
  /** The name of the error class (`ValidationError`, `MessageTooLargeError`, `DeliveryError` …). */
  readonly error: string
}

/** Counts of an import so far, given to `onProgress`. */
export interface ImportProgress {
  /** Items taken from the source (blank lines included). */
  readonly read: number
  /** Messages delivered (or, with `enable: false`, accepted). */
  readonly sent: number
  /** Items refused as invalid. */
  readonly refused: number
  /** Messages whose request failed for good. */
  readonly failed: number
  /**
   * Items with nothing to send: blank lines, messages a plugin dropped on purpose (a
   * `FilteredError`: not a failure, the watermark passes them) and, in `eventrail import
   * --verdict`, records left out. A message the tracking plan refuses (in any `planMode` that
   * refuses) counts as `refused`. Every item read has one outcome: `read` is `sent + refused + failed + skipped + pending`.
   */
  readonly skipped: number
  /** Messages handed to the client that have no outcome yet. */
  readonly pending: number
  /** Bytes of JSON text read (0 for message objects). */
  readonly bytes: number
  /**
   * The last position up to which every item has its outcome (sent or refused): a source resumed
   * after it loses nothing. It never passes a failed item (nor, with `strict`, a refused one).
   */
  readonly watermark: number
  /** Milliseconds since the import started. */
  readonly elapsedMs: number
  /** Messages with an outcome per second, since the start. */
  readonly rate: number
}

/** What {@link importMessages} resolves with: the final counts and how the import ended. */
export interface ImportSummary extends ImportProgress {
  /** Whether the import was stopped by its `signal` before the end of the source. */
  readonly aborted: boolean
  /** With `strict`, the position of the first refused item (the import stopped there). */
  readonly stoppedAt?: number
  /** Messages still without an outcome when `drainTimeout` ran out (their positions are after `watermark`). */
  readonly abandoned: number
}
