import { messageText, SENT_AT_FIELD_BYTES } from '../message/serialize'
import type { QueuedEntry } from './queue'

const BATCH_OPEN = '{"batch":['
const SENT_AT_OPEN = '],"sentAt":"'
const BATCH_CLOSE = '"}'
const COMMA = 0x2c

interface WritableBytes extends Uint8Array<ArrayBuffer> {
  write(text: string, offset: number, length: number, encoding: 'latin1' | 'utf8'): number
}
const HostBuffer = (globalThis as { Buffer?: { allocUnsafe(size: number): WritableBytes } }).Buffer

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
  let body = BATCH_OPEN + messageText(entries[0])
  for (let i = 1; i < entries.length; i++) body += ',' + messageText(entries[i])
  return body + SENT_AT_OPEN + sentAt + BATCH_CLOSE
}

/**
 * The body {@link buildBatchBody} makes, written straight into `bytes` bytes (as {@link bodyBytes}
 * counts them): each message is copied in (an ASCII one byte for byte), and no string of the
 * whole body is made and then encoded, which was half the cost of a large request. `undefined`
 * where the host has no `Buffer`, or when a message's count does not hold: then the text is sent.
 */
export function buildBatchBytes(entries: readonly QueuedEntry[], sentAt: string, bytes: number): Uint8Array<ArrayBuffer> | undefined {
  if (HostBuffer === undefined) return undefined
  const out = HostBuffer.allocUnsafe(bytes)
  let offset = write(out, BATCH_OPEN, 0, true)
  for (let i = 0; i < entries.length; i++) {
    const { json, bytes: size, head } = entries[i]
    if (i > 0) out[offset++] = COMMA
    if (offset + size > bytes) return undefined
    let start = offset
    if (head !== undefined) {
      // The head, then the line over the head's last character (the line's own `{`), put back.
      const headBytes = write(out, head, offset, false)
      start = offset + headBytes - 1
    }
    const jsonBytes = offset + size - start
    // A string as long as its UTF-8 bytes is ASCII: Latin-1 writes the same bytes, without encoding.
    if (start + jsonBytes > bytes || write(out, json, start, json.length === jsonBytes) !== jsonBytes) return undefined
    if (head !== undefined) out[start] = COMMA
    offset += size
  }
  const tail = SENT_AT_OPEN + sentAt + BATCH_CLOSE
  if (offset + tail.length !== bytes) return undefined
  write(out, tail, offset, true)
  return out
}

// Buffer#write with every argument given: workerd's Buffer (nodejs_compat) takes none for granted.
function write(out: WritableBytes, text: string, offset: number, isAscii: boolean): number {
  return out.write(text, offset, out.length - offset, isAscii ? 'latin1' : 'utf8')
}

/** The request body for a message sent on its own (`/v1/alias`): the message with `sentAt` added. */
export function buildSingleBody(entry: QueuedEntry, sentAt: string): string {
  return messageText(entry).slice(0, -1) + ',"sentAt":"' + sentAt + '"}'
}

/** Bytes of the body {@link buildBatchBody} or {@link buildSingleBody} makes of these entries. */
export function bodyBytes(entries: readonly QueuedEntry[]): number {
  if (entries.length === 1 && entries[0].isAlias) return entries[0].bytes + SENT_AT_FIELD_BYTES
  let total = BATCH_ENVELOPE_BYTES + entries.length - 1
  for (const entry of entries) total += entry.bytes
  return total
}
