import { createWriteStream, type WriteStream } from 'node:fs'

// Past this many bytes waiting for the disk, the writer is behind: the collector holds its next
// answers until the disk catches up (see `room()`), so a disk slower than the traffic slows the
// senders down instead of growing the collector without bound or leaving records out.
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024

/** Appends records to a JSON-lines file: one JSON object a line, in the order written. */
export class JsonLinesWriter {
  readonly #stream: WriteStream
  readonly #onFailure: (err: Error) => void
  #error: Error | undefined
  #lost = 0
  #written = 0
  #room: Promise<void> | undefined
  #closed = false

  private constructor(stream: WriteStream, onFailure: (err: Error) => void) {
    this.#stream = stream
    this.#onFailure = onFailure
    // A write that fails later (disk full) must not crash the process: it is kept for `close()`,
    // and reported at once.
    stream.on('error', (err) => {
      if (this.#error !== undefined) return
      this.#error = err
      this.#report(new Error(`the --out file cannot be written (${err.message}): records from now on are not in it`, { cause: err }))
    })
  }

  /** Lines that could not be written: after a write failure. */
  get lost(): number {
    return this.#lost
  }

  /** Lines queued for writing (written once `close()` resolves). */
  get written(): number {
    return this.#written
  }

  /**
   * Resolves once the lines waiting for the disk are under the bound (8 MB): at once when they
   * are, or when the file failed (nothing more waits for it). Callers hold their answer until it
   * resolves, so a slow disk slows the senders down and no accepted record is left out.
   */
  room(): Promise<void> {
    const stream = this.#stream
    if (this.#error !== undefined || stream.writableLength <= MAX_BUFFERED_BYTES || stream.destroyed) return Promise.resolve()
    // One promise for every waiting request, settled on the stream's next 'drain' (or its end).
    return (this.#room ??= new Promise<void>((resolve) => {
      const done = (): void => {
        stream.off('drain', done).off('error', done).off('close', done)
        this.#room = undefined
        resolve()
      }
      stream.on('drain', done).on('error', done).on('close', done)
    }))
  }

  #report(err: Error): void {
    try {
      this.#onFailure(err)
    } catch {
      // The reporter's own failure has nowhere better to go.
    }
  }

  /**
   * Opens `path` for appending, creating it when missing.
   * @throws Error when the file cannot be opened (no such directory, no permission).
   */
  static open(path: string, onFailure: (err: Error) => void = () => undefined): Promise<JsonLinesWriter> {
    return new Promise((resolve, reject) => {
      const stream = createWriteStream(path, { flags: 'a' })
      stream.once('error', reject)
      stream.once('open', () => {
        stream.off('error', reject)
        resolve(new JsonLinesWriter(stream, onFailure))
      })
    })
  }

  /** Queues one record for writing. */
  write(record: unknown): void {
    if (this.#error !== undefined || this.#closed) {
      this.#lost += 1
      return
    }
    this.#written += 1
    this.#stream.write(JSON.stringify(record) + '\n')
  }

  /**
   * Writes what is queued and closes the file.
   * @throws Error when a write failed.
   */
  close(): Promise<void> {
    this.#closed = true
    return new Promise((resolve, reject) => {
      this.#stream.end(() => (this.#error === undefined ? resolve() : reject(this.#error)))
    })
  }
}
