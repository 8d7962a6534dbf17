import { readFile, rename, writeFile } from 'node:fs/promises'

/** What the checkpoint file holds. */
export interface CheckpointRecord {
  /** The last line up to which every line has its outcome: `--resume` starts after it. */
  readonly line: number
  /** The file imported. */
  readonly file: string
  /** When it was written (ISO-8601). */
  readonly updatedAt: string
}

/**
 * Reads a checkpoint: the line to resume after, or 0 when there is none.
 * @throws Error when the file exists but is not a checkpoint (the message names it).
 */
export async function readCheckpoint(path: string): Promise<number> {
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
  return line
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
