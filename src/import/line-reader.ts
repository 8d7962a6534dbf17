import { ValidationError } from '../core/errors'
import type { ContentTrail } from './content-mark'
import type { SourceItem } from '../core/import-source'

/**
 * Longest line held in memory. A message may be at most 32 KB once serialized; a longer line
 * (extra white space) could still be one, so the bound is far above it. A line past it is refused
 * without being held: the reader skips to its end.
 */
export const MAX_LINE_BYTES = 1024 * 1024

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d

/** What else the line reader reports as it reads. */
export interface LineWatch {
  /** Follows the bytes read, for the checkpoint's content mark (and checks the one resumed from). */
  readonly trail?: ContentTrail
  /**
   * Bytes taken from the source, and of the lines skipped up to the checkpoint; at the end of the
   * source, its number of lines and `ended` (not when the reading stopped before).
   */
  readonly counts?: { taken: number; skipped: number; lines?: number; ended?: boolean }
}

/**
 * Splits a byte stream into numbered lines (1-based; `\n` or `\r\n`), yielded a chunk's lines at a
 * time (one await a chunk, not a line). Each line is decoded from its range of the chunk read, so
 * that no object is made per line but its text. Lines up to `skipThrough` (a checkpoint) are
 * counted, not decoded. A blank line is yielded with a `null` source: it has its outcome at once.
 * Nothing of a chunk is kept once the next is asked for (an unfinished line is copied): a source
 * may read every chunk into the same buffer. A chunk is shown to `watch.trail` before its lines
 * are yielded: a checkpoint that does not match the input throws before any line after it goes out.
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, skipThrough = 0, watch: LineWatch = {}): AsyncGenerator<SourceItem[]> {
  const { trail, counts } = watch
  let position = 0
  let carry: Uint8Array[] = []
  let carryBytes = 0
  let isOverlong = false
  for await (const chunk of withoutByteOrderMark(chunks)) {
    const items: SourceItem[] = []
    const before = position
    let start = 0
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      position += 1
      if (position > skipThrough) {
        const bytes = carryBytes + end - start
        if (isOverlong || bytes > MAX_LINE_BYTES) items.push(overlong(position, bytes))
        else if (carry.length === 0) items.push(lineItem(position, chunk, start, end))
        else items.push(lineItem(position, join(carry, chunk.subarray(start, end)), 0, bytes))
      } else if (counts !== undefined) counts.skipped += carryBytes + end - start + 1
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
      } else carry.push(copyOf(chunk.subarray(start)))
    }
    if (counts !== undefined) counts.taken += chunk.length
    trail?.take(chunk, before, position)
    if (items.length > 0) yield items
  }
  if (carryBytes > 0) position += 1
  trail?.end(position, carryBytes > 0)
  if (counts !== undefined) {
    counts.lines = position
    counts.ended = true
  }
  if (carryBytes > 0) {
    if (position > skipThrough)
      yield [isOverlong ? overlong(position, carryBytes) : lineItem(position, join(carry, new Uint8Array(0)), 0, carryBytes)]
    else if (counts !== undefined) counts.skipped += carryBytes
  }
}

const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf]

/**
 * The chunks without a UTF-8 byte order mark at the very start (as some Windows tools write one):
 * it is not part of the first line. Anywhere else, the bytes stay as they are.
 */
async function* withoutByteOrderMark(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let head: Uint8Array | undefined = new Uint8Array(0)
  for await (const chunk of chunks) {
    if (head === undefined) {
      yield chunk
      continue
    }
    const joined: Uint8Array = head.length === 0 ? chunk : join([head], chunk)
    // Not yet three bytes, and all of them are the mark's so far: wait for more.
    if (joined.length < BYTE_ORDER_MARK.length && joined.every((byte, i) => byte === BYTE_ORDER_MARK[i])) {
      head = copyOf(joined)
      continue
    }
    head = undefined
    const hasMark = BYTE_ORDER_MARK.every((byte, i) => joined[i] === byte)
    const rest = hasMark ? joined.subarray(BYTE_ORDER_MARK.length) : joined
    if (rest.length > 0) yield rest
  }
  if (head !== undefined && head.length > 0) yield head
}

// ignoreBOM: a mark inside the input stays in the line's text, as Buffer#toString keeps it.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true })
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer

// UTF-8 text of chunk[start, end). A Buffer decodes its own range, without a view of it; the same
// decoder serves a line joined from two chunks, so that a line's text (and its id) never depends
// on where the chunks were cut.
function decode(chunk: Uint8Array, start: number, end: number): string {
  if (NodeBuffer !== undefined && NodeBuffer.isBuffer(chunk)) return chunk.toString('utf8', start, end)
  return utf8Decoder.decode(chunk.subarray(start, end))
}

function copyOf(bytes: Uint8Array): Uint8Array {
  return join([], bytes)
}

function join(carry: Uint8Array[], tail: Uint8Array): Uint8Array {
  const parts = [...carry, tail]
  const total = parts.reduce((sum, part) => sum + part.length, 0)
  const joined = NodeBuffer !== undefined ? NodeBuffer.allocUnsafe(total) : new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    joined.set(part, offset)
    offset += part.length
  }
  return joined
}

// Whether `text` is what source[start, end) decodes to without replacing anything: its UTF-8 is
// those very bytes (a U+FFFD in the text may be the file's own).
function isSameBytes(text: string, source: Uint8Array, start: number, end: number): boolean {
  const encoded = NodeBuffer !== undefined ? NodeBuffer.from(text, 'utf8') : new TextEncoder().encode(text)
  if (encoded.length !== end - start) return false
  for (let i = 0; i < encoded.length; i++) if (encoded[i] !== source[start + i]) return false
  return true
}

// The line in source[start, end) (without its newline); its text loses a final \r. A line that is
// not UTF-8 (a Latin-1 export, say) is refused: decoding would put U+FFFD in place of its bytes,
// and those characters would be lost without a word. Otherwise the text is the bytes, and their
// count its UTF-8 length.
function lineItem(position: number, source: Uint8Array, start: number, end: number): SourceItem {
  const bytes = end - start
  const text = decode(source, start, end)
  if (text.includes(REPLACEMENT_CHARACTER) && !isSameBytes(text, source, start, end)) return notUtf8(position, bytes)
  const hasReturn = text.charCodeAt(text.length - 1) === CARRIAGE_RETURN
  const line = hasReturn ? text.slice(0, -1) : text
  if (isBlank(line)) return { position, source: null, bytes: bytes + 1 }
  return { position, source: line, bytes: bytes + 1, textBytes: bytes - (hasReturn ? 1 : 0) }
}

function notUtf8(position: number, bytes: number): SourceItem {
  const rule = 'is not UTF-8 text (JSON lines must be UTF-8: convert the file, e.g. with iconv -f latin1 -t utf-8)'
  return { position, source: '', bytes: bytes + 1, error: new ValidationError('line', rule, 'import') }
}

const REPLACEMENT_CHARACTER = '\ufffd'

function overlong(position: number, bytes: number): SourceItem {
  const error = new ValidationError(
    'line',
    `is ${bytes} bytes, longer than the ${MAX_LINE_BYTES} bytes a line may have (a message may have 32 KB)`,
    'import',
  )
  // Not held, so not counted against the bound on what is pending; its bytes are the input's all the same.
  return { position, source: '', bytes: 0, span: bytes + 1, error }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09 && c !== CARRIAGE_RETURN) return false
  }
  return true
}
