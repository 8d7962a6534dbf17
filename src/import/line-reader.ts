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
 * time, without decoding them: each item is a view of the bytes read, so a line is neither copied nor decoded before the import
 * needs it. Lines up to `skipThrough` (a checkpoint) are counted, not yielded. A blank line is
 * yielded with a `null` source: it has its outcome at once.
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
        if (isOverlong || carryBytes + end - start > MAX_LINE_BYTES) items.push(overlong(position, carryBytes + end - start))
        else items.push(lineItem(position, join(carry, carryBytes, chunk.subarray(start, end))))
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
      yield [isOverlong ? overlong(position, carryBytes) : lineItem(position, join(carry, carryBytes, new Uint8Array(0)))]
  }
}

function join(carry: Uint8Array[], carryBytes: number, tail: Uint8Array): Uint8Array {
  if (carry.length === 0) return tail
  return Buffer.concat([...carry, tail], carryBytes + tail.length)
}

function lineItem(position: number, bytes: Uint8Array): SourceItem {
  let length = bytes.length
  if (length > 0 && bytes[length - 1] === CARRIAGE_RETURN) length -= 1
  const line = length === bytes.length ? bytes : bytes.subarray(0, length)
  return { position, source: isBlank(line) ? null : line, bytes: bytes.length + 1 }
}

function overlong(position: number, bytes: number): SourceItem {
  const error = new ValidationError(
    'line',
    `is ${bytes} bytes, longer than the ${MAX_LINE_BYTES} bytes a line may have (a message may have 32 KB)`,
    'import',
  )
  return { position, source: '', bytes: 0, error }
}

function isBlank(line: Uint8Array): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false
  }
  return true
}
