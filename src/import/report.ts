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
 * resuming, each as its outcome comes), or, without one, the first {@link ISSUES_SHOWN} on
 * standard error in line order: outcomes come in any order (a line that is not JSON at once, a
 * message the client refuses a moment later, a failure after its retries), so a line is printed
 * once every line before it has its outcome ({@link IssueReport.release}), and what is left at the end.
 */
export class IssueReport {
  readonly #stream: WriteStream | undefined
  readonly #stderr: { write(text: string): unknown }
  #shown = 0
  #error: Error | undefined
  // Issues not yet printed, in line order: at most the ones that can still be shown.
  #held: ImportIssue[] = []

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
    let at = this.#held.length
    while (at > 0 && this.#held[at - 1].position > issue.position) at -= 1
    this.#held.splice(at, 0, issue)
    // One more than can be shown is kept: it says that there are more.
    if (this.#shown + this.#held.length > ISSUES_SHOWN + 1) this.#held.pop()
  }

  /** Prints the held issues of lines up to `settled`: every line before them has its outcome. */
  release(settled: number): void {
    let count = 0
    while (count < this.#held.length && this.#held[count].position <= settled) count += 1
    for (const issue of this.#held.splice(0, count)) this.#print(issue)
  }

  #print(issue: ImportIssue): void {
    this.#shown += 1
    if (this.#shown <= ISSUES_SHOWN) this.#stderr.write(`line ${issue.position}: ${issue.outcome}: ${issue.reason}\n`)
    else if (this.#shown === ISSUES_SHOWN + 1) this.#stderr.write(`… more lines refused or failed: pass --report FILE to keep them all\n`)
  }

  /**
   * Writes what is left and closes the file.
   * @throws Error when a write failed.
   */
  close(): Promise<void> {
    this.release(Infinity)
    const stream = this.#stream
    if (stream === undefined) return Promise.resolve()
    return new Promise((resolve, reject) => stream.end(() => (this.#error === undefined ? resolve() : reject(this.#error))))
  }
}
