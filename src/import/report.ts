import { createWriteStream, type WriteStream } from 'node:fs'
import type { ImportIssue } from './types'

/** Refused lines shown on the terminal when there is no `--report` file. */
export const ISSUES_SHOWN = 20

/** One line of the report file: the line number, what happened and why. */
export function reportLine(issue: ImportIssue): string {
  const { position, ...rest } = issue
  return JSON.stringify({ line: position, ...rest }) + '\n'
}

/**
 * Where the refused and failed lines go: the `--report` file (JSON lines, appended to when
 * resuming), or, without one, the first {@link ISSUES_SHOWN} on standard error.
 */
export class IssueReport {
  readonly #stream: WriteStream | undefined
  readonly #stderr: { write(text: string): unknown }
  #shown = 0
  #error: Error | undefined

  private constructor(stream: WriteStream | undefined, stderr: { write(text: string): unknown }) {
    this.#stream = stream
    this.#stderr = stderr
    stream?.on('error', (err) => (this.#error ??= err))
  }

  /**
   * Opens the report file (when a path is given).
   * @throws Error when it cannot be created.
   */
  static async open(path: string | undefined, append: boolean, stderr: { write(text: string): unknown }): Promise<IssueReport> {
    if (path === undefined) return new IssueReport(undefined, stderr)
    const stream = createWriteStream(path, { flags: append ? 'a' : 'w' })
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve())
      stream.once('error', reject)
    })
    return new IssueReport(stream, stderr)
  }

  add(issue: ImportIssue): void {
    if (this.#stream !== undefined) {
      if (this.#error === undefined) this.#stream.write(reportLine(issue))
      return
    }
    this.#shown += 1
    if (this.#shown <= ISSUES_SHOWN) this.#stderr.write(`line ${issue.position}: ${issue.outcome}: ${issue.reason}\n`)
    else if (this.#shown === ISSUES_SHOWN + 1) this.#stderr.write(`… more lines refused or failed: pass --report FILE to keep them all\n`)
  }

  /**
   * Writes what is left and closes the file.
   * @throws Error when a write failed.
   */
  close(): Promise<void> {
    const stream = this.#stream
    if (stream === undefined) return Promise.resolve()
    return new Promise((resolve, reject) => stream.end(() => (this.#error === undefined ? resolve() : reject(this.#error))))
  }
}
