import { appendFile, closeQuietly, readFile, realFs, writeAll, type SpoolFs } from './files'
import { verifyRoot } from './parts'
import type { SpoolSettings } from './spool'

/**
 * Dead letters, kept (`spool: { keepRejected }`): messages the service refused for good (400, 413
 * alone, 422, or a message that kept failing alone while others got through) are appended to a
 * file of the spool directory instead of being gone, one JSON line each with why:
 * `{"at","status","reason","error","body","message"}`. One file per tenant (write key and host:
 * `rejected-<tenant>.jsonl`), shared by the clients of that tenant on the directory, so restarts
 * and take-overs neither multiply nor move it. Bounded: past half the bound the file becomes the
 * older generation (`rejected-<tenant>.1.jsonl`, a rename: a client appending at that moment
 * still lands in a kept file) and the generation before it is dropped, its messages counted in a
 * `{"dropped":n}` line of the new file. `eventrail spool inspect` shows them and
 * `eventrail spool export --rejected` writes them out for `eventrail import`.
 * @module
 */

/** The names of dead-letter files: a tenant's current file and its older generation. */
export const REJECTED_NAME = /^rejected-([0-9a-f]{32})(\.1)?\.jsonl$/
/** The largest dead-letter file read back (the option's bound is at most twice a generation). */
export const MAX_REJECTED_FILE_BYTES = 256 * 1024 * 1024

/** Why a message was refused for good, as its line in the dead-letter file says. */
export interface Refusal {
  readonly status: number | undefined
  /** The `DeliveryError.reason` (`status` for an HTTP refusal), `poison` for a message that kept failing alone. */
  readonly reason: string
  readonly error: string
  readonly body: string | undefined
}

/** What a refused delivery's error says of itself, read from its fields (the spool gets no copy of the classes). */
export function refusalOf(error: Error): Refusal {
  const e = error as Error & { status?: unknown; reason?: unknown; body?: unknown; isPoison?: unknown }
  return {
    status: typeof e.status === 'number' ? e.status : undefined,
    reason: e.isPoison === true ? 'poison' : typeof e.reason === 'string' ? e.reason : 'error',
    error: String(error.message).slice(0, 500),
    body: typeof e.body === 'string' ? e.body.slice(0, 500) : undefined,
  }
}

/** A queued message as the dead-letter file takes it: its wire JSON is `head + json.slice(1)` when it has a head (see `Serialized`). */
export interface RefusedMessage {
  readonly head?: string | undefined
  readonly json: string
}

/** The dead-letter file of a spool client, when its settings keep them (`keepRejected`). */
export function rejectedFileOf(settings: SpoolSettings): RejectedFile | undefined {
  const { keepRejected } = settings
  if (keepRejected === undefined) return undefined
  return new RejectedFile(settings.fs ?? realFs, settings.dir.replace(/\/+$/, '') || '/', settings.tenant, keepRejected.maxBytes)
}

/** A tenant's dead-letter file, appended to by this client. */
export class RejectedFile {
  readonly #fs: SpoolFs
  readonly #path: string
  readonly #older: string
  readonly #generationBytes: number

  constructor(fs: SpoolFs, root: string, tenant: string, maxBytes: number) {
    this.#fs = fs
    this.#path = `${root}/rejected-${tenant}.jsonl`
    this.#older = `${root}/rejected-${tenant}.1.jsonl`
    this.#generationBytes = Math.floor(maxBytes / 2)
  }

  /**
   * Appends the messages refused with `error`; false when the disk refused (a dead letter is a
   * copy kept for a person to look at: its loss never fails a message).
   */
  keep(messages: readonly RefusedMessage[], error: Error): boolean {
    if (messages.length === 0) return true
    const why = refusalOf(error)
    const head =
      `{"at":${JSON.stringify(new Date().toISOString())},"status":${why.status ?? 'null'},"reason":${JSON.stringify(why.reason)},` +
      `"error":${JSON.stringify(why.error)},"body":${why.body === undefined ? 'null' : JSON.stringify(why.body)},"message":`
    let ok = true
    for (const m of messages) {
      const text = m.head === undefined ? m.json : m.head + m.json.slice(1)
      ok = this.#append(Buffer.from(`${head}${text}}\n`, 'utf8')) && ok
    }
    return ok
  }

  #append(line: Buffer): boolean {
    const fs = this.#fs
    try {
      let fd = appendFile(fs, this.#path)
      if (fs.fstatSync(fd).size + line.length > this.#generationBytes) {
        closeQuietly(fs, fd)
        const dropped = this.#rotate()
        fd = appendFile(fs, this.#path)
        const note = Buffer.from(`{"dropped":${dropped}}\n`)
        writeAll(fs, fd, note, note.length)
      }
      try {
        writeAll(fs, fd, line, line.length)
      } finally {
        closeQuietly(fs, fd)
      }
      return true
    } catch {
      return false
    }
  }

  // The current file becomes the older generation; the one before it is dropped. Returns the
  // messages dropped since the file was first made (its own and those its notes counted).
  #rotate(): number {
    const before = this.#countOr(this.#older)
    const current = this.#countOr(this.#path)
    this.#fs.renameSync(this.#path, this.#older)
    return Math.max(before.dropped, current.dropped) + before.lines
  }

  #countOr(path: string): { lines: number; dropped: number } {
    try {
      return countLines(readFile(this.#fs, path, 0, Infinity, MAX_REJECTED_FILE_BYTES))
    } catch {
      return { lines: 0, dropped: 0 }
    }
  }
}

const DROPPED_NOTE = Buffer.from('{"dropped":')

// The dead letters of a file and the count its notes carry, without parsing each line: a
// generation of up to 256 MiB is counted on rotation, in the client's process.
function countLines(data: Buffer): { lines: number; dropped: number } {
  let lines = 0
  let dropped = 0
  for (let at = 0; at < data.length; ) {
    const end = data.indexOf(0x0a, at)
    const stop = end < 0 ? data.length : end
    if (data.subarray(at, at + DROPPED_NOTE.length).equals(DROPPED_NOTE)) {
      const value = Number.parseInt(data.toString('latin1', at + DROPPED_NOTE.length, stop), 10)
      if (Number.isSafeInteger(value)) dropped = Math.max(dropped, value)
    } else if (stop > at) lines += 1
    at = stop + 1
  }
  return { lines, dropped }
}

/** One dead letter read back. */
export interface RejectedEntry {
  readonly at: string
  readonly status: number | null
  readonly reason: string
  readonly error: string
  readonly body: string | null
  readonly message: Record<string, unknown>
}

/** The dead letters of a file, oldest first; `dropped`: the messages its bound dropped before them. */
export interface RejectedRun {
  readonly entries: RejectedEntry[]
  readonly dropped: number
  /** Lines that are not a dead letter (cut off by a crash, or not written by the spool). */
  readonly unreadable: number
}

/** Reads the lines of a dead-letter file. */
export function parseRejected(data: Buffer): RejectedRun {
  const entries: RejectedEntry[] = []
  let dropped = 0
  let unreadable = 0
  for (const line of data.toString('utf8').split('\n')) {
    if (line === '') continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      unreadable += 1
      continue
    }
    const v = value as Partial<RejectedEntry> & { dropped?: unknown }
    if (typeof v.dropped === 'number') dropped = Math.max(dropped, v.dropped)
    else if (typeof v.message === 'object' && v.message !== null && !Array.isArray(v.message)) entries.push(v as RejectedEntry)
    else unreadable += 1
  }
  return { entries, dropped, unreadable }
}

/** A tenant's dead letters in a spool directory, both generations. */
export interface RejectedSet extends RejectedRun {
  readonly tenant: string
  readonly files: string[]
  readonly bytes: number
  /** Files that were not read: a link, another user's, too large. */
  readonly skipped: string[]
}

/**
 * The dead letters of `root`, a set per tenant, oldest first. Read as the spool reads its files
 * (`readFile`: no link followed, only this user's regular files of a bounded size).
 * @throws UntrustedDirError when the directory may not be trusted (as a client would refuse it).
 */
export function readRejected(fs: SpoolFs, root: string): RejectedSet[] {
  verifyRoot(fs, root)
  let names: string[]
  try {
    names = fs.readdirSync(root).filter((name) => REJECTED_NAME.test(name))
  } catch {
    return []
  }
  const tenants = [...new Set(names.map((name) => (REJECTED_NAME.exec(name) as RegExpExecArray)[1]))].sort()
  return tenants.map((tenant) => {
    const set = { tenant, files: [] as string[], bytes: 0, skipped: [] as string[], entries: [] as RejectedEntry[], dropped: 0, unreadable: 0 }
    // The older generation first: its messages were refused before the current file's.
    for (const name of [`rejected-${tenant}.1.jsonl`, `rejected-${tenant}.jsonl`]) {
      if (!names.includes(name)) continue
      let data: Buffer
      try {
        data = readFile(fs, `${root}/${name}`, 0, Infinity, MAX_REJECTED_FILE_BYTES)
      } catch {
        set.skipped.push(name)
        continue
      }
      const run = parseRejected(data)
      set.files.push(name)
      set.bytes += data.length
      set.entries.push(...run.entries)
      set.dropped = Math.max(set.dropped, run.dropped)
      set.unreadable += run.unreadable
    }
    return set
  })
}
