import { ValidationError } from '../errors'
import type { SourceItem } from './source'

/**
 * Longest line held in memory. A message may be at most 32 KB once serialized; a longer line
 * (extra white space) could still be one, so the bound is far above it. A line past it is refused
 * without being held: the reader skips to its end.
 */
export const MAX_LINE_BYTES = 1024 * 1024

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

/**
 * Splits a byte stream into numbered lines (1-based; `\n` or `\r\n`), yielded a chunk's lines at a
 * time (one await a chunk, not a line). Each line is decoded from its range of the chunk read, so
 * that no object is made per line but its text. Lines up to `skipThrough` (a checkpoint) are
 * counted, not decoded. A blank line is yielded with a `null` source: it has its outcome at once.
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, skipThrough = 0): AsyncGenerator<SourceItem[]> {
  let position = 0
  let carry: Uint8Array[] = []
  let carryBytes = 0
  let isOverlong = false
  for await (const chunk of chunks) {
    const items: SourceItem[] = []
    let start = 0
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      position += 1
      if (position > skipThrough) {
        const bytes = carryBytes + end - start
        if (isOverlong || bytes > MAX_LINE_BYTES) items.push(overlong(position, bytes))
        else if (carry.length === 0) items.push(lineItem(position, decode(chunk, start, end), bytes))
        else items.push(lineItem(position, decodeJoined(carry, chunk.subarray(start, end)), bytes))
      }
      carry = []
      carryBytes = 0
      isOverlong = false
      start = end + 1
    }
    if (start < chunk.length) {
      carryBytes += chunk.length - start
      // Past the bound, the rest of the line is only counted.
      if (carryBytes > MAX_LINE_BYTES || isOverlong) {
        isOverlong = true
        carry = []
      } else carry.push(chunk.subarray(start))
    }
    if (items.length > 0) yield items
  }
  if (carryBytes > 0) {
    position += 1
    if (position > skipThrough)
      yield [isOverlong ? overlong(position, carryBytes) : lineItem(position, decodeJoined(carry, new Uint8Array(0)), carryBytes)]
  }
}

const utf8Decoder = new TextDecoder()
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer

// UTF-8 text of chunk[start, end). A Buffer decodes its own range, without a view of it; the same
// decoder serves a line joined from two chunks, so that a line's text (and its id) never depends
// on where the chunks were cut.
function decode(chunk: Uint8Array, start: number, end: number): string {
  if (NodeBuffer !== undefined && NodeBuffer.isBuffer(chunk)) return chunk.toString('utf8', start, end)
  return utf8Decoder.decode(chunk.subarray(start, end))
}

function decodeJoined(carry: Uint8Array[], tail: Uint8Array): string {
  const parts = [...carry, tail]
  const total = parts.reduce((sum, part) => sum + part.length, 0)
  const joined = NodeBuffer !== undefined ? NodeBuffer.allocUnsafe(total) : new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    joined.set(part, offset)
    offset += part.length
  }
  return decode(joined, 0, total)
}

// A line of `bytes` bytes (without its newline); its text loses a final \r.
function lineItem(position: number, text: string, bytes: number): SourceItem {
  const line = text.charCodeAt(text.length - 1) === CARRIAGE_RETURN ? text.slice(0, -1) : text
  return { position, source: isBlank(line) ? null : line, bytes: bytes + 1 }
}

function overlong(position: number, bytes: number): SourceItem {
  const error = new ValidationError(
    'line',
    `is ${bytes} bytes, longer than the ${MAX_LINE_BYTES} bytes a line may have (a message may have 32 KB)`,
    'import',
  )
  return { position, source: '', bytes: 0, error }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false
  }
  return true
}
