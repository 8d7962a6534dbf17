import { createWriteStream, type WriteStream } from 'node:fs'

/** Appends records to a JSON-lines file: one JSON object a line, in the order written. */
export class JsonLinesWriter {
  readonly #stream: WriteStream
  #error: Error | undefined

  private constructor(stream: WriteStream) {
    this.#stream = stream
    // A write that fails later (disk full) must not crash the process: it is kept for `close()`.
    stream.on('error', (err) => {
      this.#error ??= err
    })
  }

  /**
   * Opens `path` for appending, creating it when missing.
   * @throws Error when the file cannot be opened (no such directory, no permission).
   */
  static open(path: string): Promise<JsonLinesWriter> {
    return new Promise((resolve, reject) => {
      const stream = createWriteStream(path, { flags: 'a' })
      stream.once('error', reject)
      stream.once('open', () => {
        stream.off('error', reject)
        resolve(new JsonLinesWriter(stream))
      })
    })
  }

  /** Queues one record for writing. */
  write(record: unknown): void {
    if (this.#error === undefined) this.#stream.write(JSON.stringify(record) + '\n')
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
