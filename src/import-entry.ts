import type { ImportClient } from './import/engine'
import type { ImportOptions, ImportSource, ImportSummary } from './import/types'

/**
 * Imports messages (historical data: a database cursor, a stream of JSON lines, an export)
 * through an `Analytics` client, each validated as a call is and sent by the client's own
 * pipeline, with backpressure (`maxPending`) instead of `QueueFullError`. The promise resolves
 * with the summary once every message has its outcome, and rejects only when the source itself
 * throws. See the README's "Historical import" for the options, progress and resuming.
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
 * const analytics = new Analytics(process.env.WRITE_KEY!, { flushAt: 1000 })
 * const rows = [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId: 'order-1' }]
 * const summary = await importMessages(rows, analytics)
 * console.log(summary)
 * ```
 */
export async function importMessages(
  source: AsyncIterable<ImportSource> | Iterable<ImportSource>,
  analytics: ImportClient,
  options?: ImportOptions,
): Promise<ImportSummary> {
  // A chunk of its own in the build (ESM and CommonJS alike): loaded here, once.
  const engine = await import('./import/import-messages')
  return engine.importMessages(source, analytics, options)
}
