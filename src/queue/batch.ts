import { SENT_AT_FIELD_BYTES } from '../message/serialize'
import type { QueuedEntry } from './queue'

const BATCH_OPEN = '{"batch":['
const SENT_AT_OPEN = '],"sentAt":"'
const BATCH_CLOSE = '"}'

/** Bytes of a batch body around its messages: `{"batch":[` … `],"sentAt":"<ISO date>"}`. */
export const BATCH_ENVELOPE_BYTES = BATCH_OPEN.length + SENT_AT_OPEN.length + 24 + BATCH_CLOSE.length

/**
 * How many entries from the front of the batch lane go into the next request: the longest run of
 * entries queued up to `maxSeq` whose body stays within `maxBodyBytes` (at least one). Exact: the
 * body is the envelope, the messages and one comma between each two.
 */
export function planBatch(at: (index: number) => QueuedEntry | undefined, maxSeq: number, maxBodyBytes: number): number {
  const first = at(0)
  if (first === undefined) return 0
  let bodyBytes = BATCH_ENVELOPE_BYTES + first.bytes
  let count = 1
  for (let next = at(count); next !== undefined && next.seq <= maxSeq; next = at(count)) {
    bodyBytes += next.bytes + 1
    if (bodyBytes > maxBodyBytes) break
    count += 1
  }
  return count
}

/** The two halves of a request's entries (the first half is the larger by at most one). */
export function splitInHalves<T>(entries: readonly T[]): [T[], T[]] {
  const middle = Math.ceil(entries.length / 2)
  return [entries.slice(0, middle), entries.slice(middle)]
}

/** The request body for `/v1/batch`, built by joining the messages' JSON texts. */
export function buildBatchBody(entries: readonly QueuedEntry[], sentAt: string): string {
  let body = BATCH_OPEN + entries[0].json
  for (let i = 1; i < entries.length; i++) body += ',' + entries[i].json
  return body + SENT_AT_OPEN + sentAt + BATCH_CLOSE
}

/** The request body for a message sent on its own (`/v1/alias`): the message with `sentAt` added. */
export function buildSingleBody(entry: QueuedEntry, sentAt: string): string {
  return entry.json.slice(0, -1) + ',"sentAt":"' + sentAt + '"}'
}

/** Bytes of the body {@link buildBatchBody} or {@link buildSingleBody} makes of these entries. */
export function bodyBytes(entries: readonly QueuedEntry[]): number {
  if (entries.length === 1 && entries[0].isAlias) return entries[0].bytes + SENT_AT_FIELD_BYTES
  let total = BATCH_ENVELOPE_BYTES + entries.length - 1
  for (const entry of entries) total += entry.bytes
  return total
}
