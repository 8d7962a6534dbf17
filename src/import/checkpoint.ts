import { readFile, realpath, rename, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'

/** What the checkpoint file holds. */
export interface CheckpointRecord {
  /** The last line up to which every line has its outcome: `--resume` starts after it. */
  readonly line: number
  /** The file imported, as an absolute path (`-` for standard input). */
  readonly file: string
  /** When it was written (ISO-8601). */
  readonly updatedAt: string
}

/**
 * Reads the checkpoint of an import of `file`: the line to resume after, or 0 when there is none.
 * @throws Error when the file exists but is not a checkpoint, or is the checkpoint of another
 * file (resuming from it would skip lines of this one); the message names both.
 */
export async function readCheckpoint(path: string, file: string): Promise<number> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw err
  }
  let record: Partial<CheckpointRecord> | undefined
  try {
    record = JSON.parse(text) as Partial<CheckpointRecord>
  } catch {
    record = undefined
  }
  const line = record?.line
  if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0) {
    throw new Error(`${path} is not a checkpoint of eventrail import (expected {"line": N, …})`)
  }
  const recorded = record?.file
  if (typeof recorded === 'string' && (await fileIdentity(recorded)) !== (await fileIdentity(file))) {
    throw new Error(
      `${path} is the checkpoint of ${recorded}, not of ${file}: give --checkpoint FILE for this one, or remove it to start over`,
    )
  }
  return line
}

/** How a checkpoint names the file it is of: its absolute real path (`-` for standard input). */
export async function fileIdentity(file: string): Promise<string> {
  if (file === '-') return file
  return realpath(file).catch(() => resolve(file))
}

/**
 * Writes a checkpoint atomically: to a temporary file, then renamed over the old one, so that a
 * crash (even `kill -9`) leaves either the old checkpoint or the new one, never half of one.
 */
export class CheckpointWriter {
  readonly #path: string
  readonly #file: string
  #written = -1
  #writing: Promise<void> | undefined

  /** `file`: the file's identity, from {@link fileIdentity}. */
  constructor(path: string, file: string) {
    this.#path = path
    this.#file = file
  }

  /** Writes `line` unless it is already written; a write in progress is awaited first, so writes never overlap. */
  async write(line: number): Promise<void> {
    while (this.#writing !== undefined) await this.#writing
    if (line === this.#written) return
    this.#writing = this.#replace(line)
    try {
      await this.#writing
      this.#written = line
    } finally {
      this.#writing = undefined
    }
  }

  async #replace(line: number): Promise<void> {
    const record: CheckpointRecord = { line, file: this.#file, updatedAt: new Date().toISOString() }
    const temporary = `${this.#path}.${process.pid}.tmp`
    await writeFile(temporary, JSON.stringify(record) + '\n')
    await rename(temporary, this.#path)
  }
}
