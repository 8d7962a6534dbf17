import { randomBytes } from 'node:crypto'
import { open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { ContentMark } from './content-mark'

/** What the checkpoint file holds. */
export interface CheckpointRecord {
  /** The last line up to which every line has its outcome: `--resume` starts after it. */
  readonly line: number
  /** The file imported, as an absolute path (`-` for standard input). */
  readonly file: string
  /** When it was written (ISO-8601). */
  readonly updatedAt: string
  /** Every line of the input had its outcome: the import went to its end. */
  readonly complete?: boolean
  /** The file's size in bytes when the import started (on disk: compressed for `.gz`). */
  readonly size?: number
  /** The file's modification time when the import started (ISO-8601). */
  readonly modifiedAt?: string
  /** What identifies the input up to the end of `line`: `--resume` checks it. */
  readonly content?: ContentMark
}

/** A file at the checkpoint's path that is not a checkpoint: it is never overwritten. */
export class NotACheckpointError extends Error {
  override name = 'NotACheckpointError'
}

/**
 * Reads the checkpoint at `path`: its record, or undefined when there is none.
 * @throws NotACheckpointError when the file exists but is not a checkpoint of eventrail import.
 * @throws Error when it cannot be read.
 */
export async function loadCheckpoint(path: string): Promise<CheckpointRecord | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    // No such file, or no such directory (where a file is): no checkpoint; whether one can be written is checked apart.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new NotACheckpointError(`${path} is a directory, not a checkpoint`)
    throw err
  }
  let record: Partial<CheckpointRecord> | undefined
  try {
    record = JSON.parse(text) as Partial<CheckpointRecord>
  } catch {
    record = undefined
  }
  const line = record?.line
  if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 0 || typeof record?.file !== 'string') {
    throw new NotACheckpointError(`${path} is not a checkpoint of eventrail import (expected {"line": N, "file": …})`)
  }
  return { ...record, line, file: record.file } as CheckpointRecord
}

/** How a checkpoint names the file it is of: its absolute real path (`-` for standard input). */
export async function fileIdentity(file: string): Promise<string> {
  if (file === '-') return file
  return realpath(file).catch(() => resolve(file))
}

/** Makes the random part of a temporary file's name. */
export type NameMaker = () => string

const randomName: NameMaker = () => randomBytes(8).toString('hex')
// Names tried before giving up on creating a temporary file (each is random: a clash is a planted file).
const NAME_ATTEMPTS = 8

/**
 * Creates a new file next to `path`, exclusively (`O_CREAT | O_EXCL`: never a file or a symbolic
 * link that is already there, which is never followed), with a random name, and writes `text` to
 * it. Returns its path.
 */
async function writeExclusive(path: string, text: string, name: NameMaker): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const temporary = join(dirname(path), `${basename(path)}.${name()}.tmp`)
    let handle
    try {
      handle = await open(temporary, 'wx')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < NAME_ATTEMPTS) continue
      throw err
    }
    try {
      await handle.writeFile(text)
    } catch (err) {
      await handle.close().catch(() => {})
      await unlink(temporary).catch(() => {})
      throw err
    }
    await handle.close()
    return temporary
  }
}

/**
 * Checks, before an import starts, that a checkpoint can be written at `path`: a temporary file
 * can be created next to it (then it is removed), and `path` is not a directory.
 * @throws Error naming the reason (ENOENT, EACCES, EROFS, …).
 */
export async function probeCheckpointPath(path: string, name: NameMaker = randomName): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (info?.isDirectory() === true) throw new Error(`${path} is a directory`)
  const temporary = await writeExclusive(path, '', name)
  await unlink(temporary)
}

/**
 * Writes a checkpoint atomically: to a new temporary file next to it (created exclusively, under a
 * random name), then renamed over the old one, so that a crash (even `kill -9`) leaves either the
 * old checkpoint or the new one, never half of one, and a file planted under the temporary name is
 * never written through.
 */
export class CheckpointWriter {
  readonly #path: string
  readonly #describe: (line: number) => Omit<CheckpointRecord, 'line' | 'updatedAt' | 'complete'> | undefined
  readonly #name: NameMaker
  #written: { line: number; complete: boolean } | undefined
  #writing: Promise<void> | undefined
  #error: Error | undefined

  /**
   * `describe`: what the record says of the input up to a line (its file, its content's mark), or
   * undefined while that is not known: the checkpoint is then not written.
   */
  constructor(
    path: string,
    describe: (line: number) => Omit<CheckpointRecord, 'line' | 'updatedAt' | 'complete'> | undefined,
    name: NameMaker = randomName,
  ) {
    this.#path = path
    this.#describe = describe
    this.#name = name
  }

  /** The line of the last checkpoint written by this writer, if any. */
  get writtenLine(): number | undefined {
    return this.#written?.line
  }

  /** Why the last write failed; undefined once one succeeds. */
  get error(): Error | undefined {
    return this.#error
  }

  /**
   * Writes `line` unless it is already written (or its record is not known yet); a write in
   * progress is awaited first, so writes never overlap.
   * @throws Error when the file cannot be written (it is also kept in {@link error}).
   */
  async write(line: number, complete = false): Promise<void> {
    while (this.#writing !== undefined) await this.#writing
    if (line === this.#written?.line && complete === this.#written.complete && this.#error === undefined) return
    const described = this.#describe(line)
    if (described === undefined) return
    const record: CheckpointRecord = { line, ...described, ...(complete ? { complete } : {}), updatedAt: new Date().toISOString() }
    this.#writing = this.#replace(JSON.stringify(record) + '\n')
    try {
      await this.#writing
      this.#written = { line, complete }
      this.#error = undefined
    } catch (err) {
      this.#error = err instanceof Error ? err : new Error(String(err))
      throw err
    } finally {
      this.#writing = undefined
    }
  }

  async #replace(text: string): Promise<void> {
    const temporary = await writeExclusive(this.#path, text, this.#name)
    try {
      await rename(temporary, this.#path)
    } catch (err) {
      await unlink(temporary).catch(() => {})
      throw err
    }
  }
}
