import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createGunzip } from 'node:zlib'
import { pipeline, Readable } from 'node:stream'

// Bytes read at a time (a stream's chunks; the buffer of blocking reads).
const CHUNK_BYTES = 64 * 1024

/** Where an import reads from: the bytes (decompressed), and how far into the file it is. */
export interface ImportInput {
  /** The bytes of the JSON lines, decompressed when the file is gzip. */
  readonly chunks: AsyncIterable<Uint8Array>
  /**
   * Bytes of the file on disk (compressed for `.gz`) when the import started: no more is read, so
   * that what is appended meanwhile (the collector's `--out` file, when importing into it) is not
   * read. Undefined for standard input.
   */
  readonly size: number | undefined
  /** The file's modification time when the import started (undefined for standard input). */
  readonly modifiedMs: number | undefined
  /** Bytes of the file read so far (compressed for `.gz`): with `size`, how far the import is. */
  bytesRead(): number
  /** Stops reading: the chunks end. */
  close(): void
}

/**
 * Opens the input of `eventrail import`: a file, `-` for standard input, decompressed when its name
 * ends in `.gz` (or, for standard input, when it starts with gzip's magic bytes). A plain file is
 * read with blocking reads (see {@link readBlocking}).
 * @throws Error when the file cannot be read (the message names it).
 */
export async function openInput(file: string, stdin: Readable): Promise<ImportInput> {
  if (file === '-') {
    // Counted as the chunks are taken, not by a 'data' listener: that would set the stream flowing
    // at once, and what arrived before the reading starts would be lost.
    let read = 0
    const count = (bytes: number): void => {
      read += bytes
    }
    return {
      chunks: sniffGzip(stdin, count),
      size: undefined,
      modifiedMs: undefined,
      bytesRead: () => read,
      close: () => stdin.destroy(),
    }
  }
  const info = await stat(file)
  if (!info.isFile()) throw new Error(`${file} is not a file`)
  if (!file.endsWith('.gz')) return { ...readBlocking(file, info.size), modifiedMs: info.mtimeMs }
  // Up to the size it has now (`end` is inclusive).
  const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES, ...(info.size > 0 ? { end: info.size - 1 } : {}) })
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve())
    stream.once('error', reject)
  })
  const chunks = file.endsWith('.gz') ? stream.pipe(createGunzip()).on('error', () => stream.destroy()) : stream
  return {
    chunks: chunks,
    size: info.size,
    modifiedMs: info.mtimeMs,
    bytesRead: () => stream.bytesRead,
    close: () => {
      stream.destroy()
      if (chunks !== stream) chunks.destroy()
    },
  }
}

// Standard input has no name to go by: gzip data starts with 0x1f 0x8b. Every chunk is taken
// through the one iterator, gzip or not: a second reader of the stream (a pipe to gunzip beside
// the iterator) would take chunks from under it, and the input ended after its first chunk.
async function* sniffGzip(stdin: Readable, count: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  const iterator = stdin[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>
  async function* taken(): AsyncGenerator<Uint8Array> {
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      count(next.value.length)
      yield next.value
    }
  }
  const first = await iterator.next()
  if (first.done === true) return
  const head = first.value
  count(head.length)
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    async function* all(): AsyncGenerator<Uint8Array> {
      yield head
      yield* taken()
    }
    const gunzip = createGunzip()
    // A read error, or data that is not gzip, ends the decompressed chunks with that error.
    pipeline(Readable.from(all(), { objectMode: false }), gunzip, () => {})
    yield* gunzip
    return
  }
  yield head
  yield* taken()
}

/**
 * A plain file, read with blocking reads into one buffer. A stream's reads each wait for a turn
 * of libuv's thread pool, and on a busy machine (the import takes a core, the service or the
 * network another) that turn comes late: the import stalled on 10-20 % of its reads, a blocking
 * read of 64 KB from the page cache takes microseconds. Between two reads the event loop runs
 * (`setImmediate`): requests go out, answers come in and Ctrl+C is heard, as with a stream.
 * Every chunk is read into the same buffer: for `readLines`, which keeps nothing of a chunk once
 * it asks for the next.
 */
export function readBlocking(file: string, size: number): Omit<ImportInput, 'modifiedMs'> {
  const fd = openSync(file, 'r')
  let position = 0
  let isClosed = false
  const close = (): void => {
    if (isClosed) return
    isClosed = true
    closeSync(fd)
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES)
    try {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve))
        if (isClosed) return
        // No further than the size at the start: what is appended since is not this import's.
        const read = position >= size ? 0 : readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position)
        if (read === 0) return
        position += read
        yield read === buffer.length ? buffer : buffer.subarray(0, read)
      }
    } finally {
      close()
    }
  }
  return { chunks: chunks(), size, bytesRead: () => position, close }
}
