import { MAX_MESSAGE_BYTES } from '../limits'
import { mergeEnvelope } from './envelope'
import { isJsonObject } from './verdict'

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8')

/**
 * Why a batch body breaks the 32 KB per-event limit, with each item measured as it will be
 * stored: with the batch's `context` and `integrations` merged in (the wire spec's "32 KB maximum
 * per event" is about the event the service builds). Costs about one serialization of the body:
 * an item is merged and measured only when it and the envelope together could pass the limit.
 * @returns the reason for a 400, or undefined when every item is within the limit.
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
  for (let i = 0; i < body.batch.length; i++) {
    const item: unknown = body.batch[i]
    let bytes = bytesOf(item)
    if (bytes + envelopeBytes > MAX_MESSAGE_BYTES && isJsonObject(item)) bytes = bytesOf(mergeEnvelope(body, item))
    if (bytes > MAX_MESSAGE_BYTES) {
      return `batch item ${i} is ${bytes} bytes with the batch's context and integrations merged in, over the limit of ${MAX_MESSAGE_BYTES} bytes (32 KB) per message`
    }
  }
  return undefined
}
