import { BATCH_TYPES, describeJson, isJsonObject, type Drop, type MessageKind } from './verdict'

/** One message taken out of a request body, before its verdict. */
export interface Item {
  /** The kind: the endpoint's, or the batch item's `type` as sent (`null` when it has none). */
  readonly type: string | null
  /** The kind to judge the message by; `undefined` when `drop` already says why it is dropped. */
  readonly kind: MessageKind | undefined
  /** The message with the batch envelope merged in; empty when what arrived is not an object. */
  readonly message: Record<string, unknown>
  /** What arrived, when it is not a JSON object. */
  readonly value?: unknown
  /** Set when the item is dropped before the message rules apply (batch `type`, alias in a batch, …). */
  readonly drop?: Drop
}

const ALLOWED = BATCH_TYPES.join(', ')

/**
 * The items of a parsed request body. A single-message endpoint carries one item of its kind;
 * `/v1/batch` carries the items of `batch`, each with the envelope's `context` and `integrations`
 * merged in (the item's own keys win) and a `type` that must be a batchable kind.
 */
export function expandBody(endpoint: MessageKind | 'batch', body: unknown): Item[] {
  if (endpoint !== 'batch') {
    if (!isJsonObject(body)) return [notAnObject(endpoint, body)]
    // The endpoint says what the message is; `type` goes first, as in a batch item.
    const message: Record<string, unknown> = { type: endpoint, ...body }
    message.type = endpoint
    return [{ type: endpoint, kind: endpoint, message }]
  }
  if (!isJsonObject(body)) {
    const drop: Drop = {
      code: 'not_an_object',
      reason: `batch: the body must be a JSON object with a "batch" array (got ${describeJson(body)})`,
    }
    return [{ type: null, kind: undefined, message: {}, value: body, drop }]
  }
  if (!Array.isArray(body.batch)) {
    const drop: Drop = {
      code: 'missing_batch',
      reason: `batch: "batch" is required (an array of messages; got ${describeJson(body.batch)})`,
    }
    return [{ type: null, kind: undefined, message: body, drop }]
  }
  const envelopeDrop = checkEnvelope(body)
  // Items that cannot be messages (not objects, or empty ones) are recorded one by one only up to
  // a few: a 500 KB batch of 80,000 of them must not become 80,000 records.
  const items: Item[] = []
  let notMessages = 0
  for (const item of body.batch as unknown[]) {
    const isNotMessage = !isJsonObject(item) || Object.keys(item).length === 0
    if (isNotMessage && ++notMessages > MAX_NON_MESSAGE_RECORDS) continue
    items.push(batchItem(item, body, envelopeDrop))
  }
  const skipped = notMessages - MAX_NON_MESSAGE_RECORDS
  if (skipped > 0) {
    const drop: Drop = {
      code: 'not_an_object',
      reason: `batch: ${skipped} more items that cannot be messages (not objects, or empty) were left out, not recorded one by one`,
    }
    items.push({ type: null, kind: undefined, message: {}, drop })
  }
  return items
}

/** Records kept, per batch, for items that cannot be messages; past them, one record says how many more. */
export const MAX_NON_MESSAGE_RECORDS = 100

/**
 * The batch envelope's `context` and `integrations` merged into an item: keys of the item's own
 * objects win over the envelope's. Other item fields are left as they are.
 */
export function mergeEnvelope(
  envelope: Readonly<Record<string, unknown>>,
  item: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...item }
  for (const field of ['context', 'integrations']) {
    const outer = envelope[field]
    if (!isJsonObject(outer)) continue
    const inner = item[field]
    merged[field] = isJsonObject(inner) ? { ...outer, ...inner } : inner == null ? { ...outer } : inner
  }
  return merged
}

function batchItem(item: unknown, envelope: Record<string, unknown>, envelopeDrop: Drop | undefined): Item {
  if (!isJsonObject(item)) return notAnObject(null, item)
  const message = mergeEnvelope(envelope, item)
  const type = typeof item.type === 'string' ? item.type : null
  if (envelopeDrop !== undefined) return { type, kind: undefined, message, drop: envelopeDrop }
  if (type === 'alias') {
    return {
      type,
      kind: undefined,
      message,
      drop: { code: 'alias_in_batch', reason: 'batch: alias is not allowed in a batch (send it to /v1/alias)' },
    }
  }
  if (!(BATCH_TYPES as readonly string[]).includes(type ?? '')) {
    const got = item.type === undefined ? 'none' : JSON.stringify(item.type)
    return {
      type,
      kind: undefined,
      message,
      drop: { code: 'type_not_allowed', reason: `batch: "type" of an item must be one of ${ALLOWED} (got ${got})` },
    }
  }
  return { type, kind: type as MessageKind, message }
}

function checkEnvelope(body: Record<string, unknown>): Drop | undefined {
  for (const field of ['context', 'integrations']) {
    const value = body[field]
    if (value != null && !isJsonObject(value)) {
      return { code: 'wrong_field_type', reason: `batch: "${field}" of the batch must be an object (got ${describeJson(value)})` }
    }
  }
  return undefined
}

function notAnObject(type: MessageKind | null, value: unknown): Item {
  const where = type === null ? 'batch: an item' : `${type}: the message`
  const drop: Drop = { code: 'not_an_object', reason: `${where} must be a JSON object (got ${describeJson(value)})` }
  return { type, kind: undefined, message: {}, value, drop }
}
