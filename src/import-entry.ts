import type { ImportClient } from './import/engine'
import type { ImportOptions, ImportSource, ImportSummary } from './import/types'

/**
 * Imports messages (historical data: a database cursor, a stream of JSON lines, an export)
 * through an `Analytics` client: each item goes through the client's own method, so it is
 * validated exactly as any call is and sent by the client's own pipeline (batches, retries,
 * rate limit). Reading pauses while `maxPending` messages are waiting for their outcome
 * (backpressure instead of `QueueFullError`), so memory stays flat whatever the size of the source.
 *
 * Each item is a message with a `type` field, a line of JSON text, or a record written by
 * `eventrail dev --out`. An invalid item is counted and reported to `onIssue` with its position;
 * it never stops the import (unless `strict`). A line of text without a `messageId` gets one derived
 * from its bytes and position, the same in every run; for objects, pass `messageId` (e.g. from
 * the row's primary key) so that the service can de-duplicate a repeated run.
 *
 * The promise resolves, once every message has its outcome, with the summary; it rejects only
 * when the source itself throws (a read error), with that error, once every message already
 * handed over has its outcome (the last `onProgress` has the watermark to resume from). `progress.watermark` is the position up to which
 * everything has its outcome: store it to resume a long import after a crash.
 *
 * The import engine is loaded on the first call, not with `import 'eventrail'`: a client that
 * never imports does not load it.
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
  options: ImportOptions = {},
): Promise<ImportSummary> {
  // A file of its own in the build, loaded here, once (a bundler takes it in: tsup.config.ts).
  const engine = await import('./import/import-messages')
  return engine.importMessages(source, analytics, options)
}
