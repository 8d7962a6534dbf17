import { ValidationError } from '../core/errors'
import { IMPORT_VIEW } from '../core/internal'
import { ownOptions } from '../core/own-options'
import { runImport, type ImportClient, type SourceItem } from './engine'
import type { ImportOptions, ImportSource, ImportSummary } from './types'

export type { ImportClient } from './engine'

// An Analytics client's internal entry: the client to import through (its plugins, or not).
interface ImportViews {
  [IMPORT_VIEW](usePlugins: boolean): ImportClient
}

/**
 * Imports messages (historical data: a database cursor, a stream of JSON lines, an export)
 * through an `Analytics` client: each item goes through the client's own method, so it is
 * validated exactly as any call is and sent by the client's own pipeline (batches, retries,
 * rate limit). Reading pauses while `maxPending` messages are waiting for their outcome
 * (backpressure instead of `QueueFullError`), so memory stays flat whatever the size of the source.
 *
 * Each item is a message with a `type` field, a line of JSON text, or a record written by
 * `eventrail dev --out`. An invalid item is counted and reported to `onIssue` with its position;
 * it never stops the import (unless `strict`). Every item gets one outcome: sent, refused (an
 * invalid message, an item that is not a message such as `null`, an item for which the
 * `messageId` option throws), failed, or skipped (a blank line of text). A line of text without a `messageId` gets one derived
 * from its bytes and position, the same in every run; for objects, pass `messageId` (e.g. from
 * the row's primary key) so that the service can de-duplicate a repeated run.
 *
 * The promise resolves, once every message has its outcome, with the summary; it rejects only
 * when the source itself throws (a read error), with that error, once every message already
 * handed over has its outcome (the last `onProgress` has the watermark to resume from). `progress.watermark` is the position up to which
 * everything has its outcome: store it to resume a long import after a crash.
 *
 * @param source - the items, in order: an async iterable (a generator, a stream in object mode) or an array.
 * @param analytics - the client to send with; give it a large `flushAt` (e.g. 1000) for full batches.
 * @param options - bounds, rate, progress and issue callbacks, abort signal: see {@link ImportOptions}.
 * @throws ValidationError (as a rejection) when an option is invalid; the message names it.
 * @example
 * ```ts
 * import { Analytics, importMessages } from 'eventrail'
 *
 * async function* orders() {
 *   for await (const row of db.query('SELECT * FROM orders ORDER BY id')) {
 *     yield {
 *       type: 'track',
 *       userId: row.customer_id,
 *       event: 'Order Completed',
 *       timestamp: row.created_at,
 *       messageId: `order-${row.id}`,
 *       properties: { total: row.total },
 *     }
 *   }
 * }
 *
 * const analytics = new Analytics('WRITE_KEY', { flushAt: 1000 })
 * const summary = await importMessages(orders(), analytics, {
 *   onProgress: (p) => console.log(`${p.sent} sent, ${p.refused} refused, ${Math.round(p.rate)}/s`),
 *   onIssue: (issue) => console.error(`row ${issue.position}: ${issue.reason}`),
 * })
 * await analytics.closeAndFlush()
 * ```
 */
export async function importMessages(
  source: AsyncIterable<ImportSource> | Iterable<ImportSource>,
  analytics: ImportClient,
  input: ImportOptions = {},
): Promise<ImportSummary> {
  if (typeof input !== 'object' || input === null) throw new ValidationError('options', 'must be an object', 'importMessages')
  // Own fields only, each read once: nothing of a polluted Object.prototype is taken for an option.
  const options = ownOptions(input, 'options', 'importMessages') as ImportOptions
  if (
    source == null ||
    (typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function' &&
      typeof (source as Iterable<unknown>)[Symbol.iterator] !== 'function')
  ) {
    throw new ValidationError('source', 'must be an iterable or an async iterable of messages', 'importMessages')
  }
  if (analytics == null || typeof analytics.track !== 'function' || typeof analytics.flush !== 'function') {
    throw new ValidationError('analytics', 'must be an Analytics client', 'importMessages')
  }
  const client = (analytics as Partial<ImportViews>)[IMPORT_VIEW]?.call(analytics, options.plugins !== false) ?? analytics
  return runImport(toItems(source, options.firstPosition ?? 1), client, options)
}

async function* toItems(source: AsyncIterable<ImportSource> | Iterable<ImportSource>, first: number): AsyncGenerator<SourceItem[]> {
  let position = first
  for await (const value of source as AsyncIterable<unknown>) {
    if (typeof value === 'string') {
      yield [{ position, source: value.trim() === '' ? null : value, bytes: Buffer.byteLength(value) }]
    } else if (typeof value === 'object' && value !== null) {
      yield [{ position, source: value as Record<string, unknown>, bytes: 0 }]
    } else {
      // null, a number…: refused with its position, never taken for a blank line.
      const rule = `must be a message object or a line of JSON text (got ${value === null ? 'null' : typeof value})`
      yield [{ position, source: '', bytes: 0, error: new ValidationError('item', rule, 'importMessages') }]
    }
    position += 1
  }
}
