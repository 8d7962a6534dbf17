import { MAX_MESSAGE_BYTES } from '../core/limits'
import { mergeEnvelope } from './envelope'
import { isJsonObject } from './verdict'

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8')

/**
 * Most bytes a batch may stand for once the envelope is merged into each item: 4 MiB, 8× the
 * 500 KB batch limit. Past it the batch is refused: a small envelope repeated into thousands of
 * tiny items would otherwise turn one request into hundreds of MB of records and `--out` lines.
 * A real client's batch stays far below (a 1 KB envelope over 500 KB of 150-byte items is ~3.9 MB).
 */
export const MAX_MERGED_BATCH_BYTES = 4 * 1024 * 1024

/**
 * Why a batch body breaks the 32 KB per-event limit, with each item measured as it will be
 * stored: with the batch's `context` and `integrations` merged in (the wire spec's "32 KB maximum
 * per event" is about the event the service builds). Costs about one serialization of the body:
 * an item is merged and measured only when it and the envelope together could pass the limit.
 * The items' total, each counted with the envelope, must also stay within
 * {@link MAX_MERGED_BATCH_BYTES}, so that the records a request makes stay proportional to it.
 * @returns the reason for a 400, or undefined when every item is within the limits.
 */
export function oversizedBatchItem(body: unknown): string | undefined {
  if (!isJsonObject(body) || !Array.isArray(body.batch)) return undefined
  const envelope = {
    context: isJsonObject(body.context) ? body.context : undefined,
    integrations: isJsonObject(body.integrations) ? body.integrations : undefined,
  }
  const envelopeBytes = (envelope.context ? bytesOf(envelope.context) : 0) + (envelope.integrations ? bytesOf(envelope.integrations) : 0)
  if (envelopeBytes > MAX_MESSAGE_BYTES && body.batch.length > 0) {
    return `the batch's context and integrations are ${envelopeBytes} bytes: merged into each item, every item would be over the limit of ${MAX_MESSAGE_BYTES} bytes (32 KB) per message`
  }
  let total = 0
  for (let i = 0; i < body.batch.length; i++) {
    const item: unknown = body.batch[i]
    let bytes = bytesOf(item)
    if (bytes + envelopeBytes > MAX_MESSAGE_BYTES && isJsonObject(item)) bytes = bytesOf(mergeEnvelope(body, item))
    if (bytes > MAX_MESSAGE_BYTES) {
      return `batch item ${i} is ${bytes} bytes with the batch's context and integrations merged in, over the limit of ${MAX_MESSAGE_BYTES} bytes (32 KB) per message`
    }
    total += isJsonObject(item) ? bytes + envelopeBytes : bytes
  }
  if (total > MAX_MERGED_BATCH_BYTES) {
    return `the batch's ${body.batch.length} items total ${total} bytes with the batch's context and integrations merged into each, over the limit of ${MAX_MERGED_BATCH_BYTES} bytes (4 MiB) per batch`
  }
  return undefined
}
