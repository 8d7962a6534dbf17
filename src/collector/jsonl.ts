import { createWriteStream, type WriteStream } from 'node:fs'

// Past this many bytes waiting for the disk, lines are not queued (and counted as lost, and
// reported): a disk slower than the traffic must not grow the collector without bound.
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024

/** Appends records to a JSON-lines file: one JSON object a line, in the order written. */
export class JsonLinesWriter {
  readonly #stream: WriteStream
  readonly #onFailure: (err: Error) => void
  #error: Error | undefined
  #lost = 0

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

  /** Lines that could not be written: after a write failure, or while the disk fell behind. */
  get lost(): number {
    return this.#lost
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
    if (this.#error !== undefined) {
      this.#lost += 1
      return
    }
    if (this.#stream.writableLength > MAX_BUFFERED_BYTES) {
      if (this.#lost++ === 0)
        this.#report(new Error('the --out file falls behind: the disk is slower than the traffic, and records are being left out of it'))
      return
    }
    this.#stream.write(JSON.stringify(record) + '\n')
  }

  /**
   * Writes what is queued and closes the file.
   * @throws Error when a write failed.
   */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#stream.end(() => (this.#error === undefined ? resolve() : reject(this.#error)))
    })
  }
}
