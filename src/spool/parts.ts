import { hostname } from 'node:os'
import { createFile, readFile, writeAll, type SpoolFs } from './files'

/**
 * The spool directory holds one part a client: `part-<pid>-<random>/`, with `owner.json` (pid,
 * host, start) whose modification time is its heartbeat, and the part's segments. A client takes
 * over the part of a client that is gone by renaming it into its own part (`from-<name>/`): a
 * rename succeeds once, so two survivors never both send it.
 * @module
 */

/** A part whose heartbeat is older than this is a dead process's (another host, or a reused pid). */
export const STALE_MS = 30_000
/** On this host, a part whose pid is alive is taken over only past this (the pid was reused). */
const REUSED_PID_MS = 10 * 60_000
const OWNER_FILE = 'owner.json'

// Parts opened by clients of this process and not closed: a part with this pid that is not here
// belongs to an earlier process of the same pid (a container restarted: its process is pid 1 again).
const livePaths = new Set<string>()

interface Owner {
  readonly pid: number
  readonly host: string
}

/** Creates this client's part in `root` (made when missing, owner-only) and returns its path. */
export function createPart(fs: SpoolFs, root: string): string {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 })
  const suffix = globalThis.crypto.randomUUID().slice(0, 8)
  const path = `${root}/part-${process.pid}-${suffix}`
  fs.mkdirSync(path, { mode: 0o700 })
  const fd = createFile(fs, `${path}/${OWNER_FILE}`)
  try {
    const owner = Buffer.from(JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString() }))
    writeAll(fs, fd, owner, owner.length)
  } finally {
    fs.closeSync(fd)
  }
  livePaths.add(path)
  return path
}

/** This client is done with its part (it may now be taken over by another client of this process). */
export function releasePart(path: string): void {
  livePaths.delete(path)
}

/** Refreshes the part's heartbeat; false when the part is gone (another client took it over). */
export function beat(fs: SpoolFs, path: string): boolean {
  const now = new Date()
  try {
    fs.utimesSync(`${path}/${OWNER_FILE}`, now, now)
    return true
  } catch {
    return false
  }
}

/** The names of the parts in `root` whose client is gone: its process died, or it stopped beating. */
export function findOrphans(fs: SpoolFs, root: string): string[] {
  let names: string[]
  try {
    names = fs
      .readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.startsWith('part-'))
      .map((d) => d.name)
  } catch {
    return []
  }
  return names.filter((name) => isOrphan(fs, `${root}/${name}`)).sort()
}

function isOrphan(fs: SpoolFs, path: string): boolean {
  if (livePaths.has(path)) return false
  let beatMs: number
  try {
    beatMs = fs.statSync(`${path}/${OWNER_FILE}`).mtimeMs
  } catch {
    // No owner file: a client that died while making its part, or a part being renamed. The
    // directory's own time tells how old it is.
    try {
      beatMs = fs.lstatSync(path).mtimeMs
    } catch {
      return false
    }
    return Date.now() - beatMs > STALE_MS
  }
  const age = Date.now() - beatMs
  const owner = readOwner(fs, path)
  // Another host (or no readable owner): only the heartbeat can tell.
  if (owner === undefined || owner.host !== hostname()) return age > STALE_MS
  // This host: the pid tells. A live process whose event loop was blocked past the heartbeat's
  // age keeps its part; only a pid taken by another process long after (a reused pid) does not.
  if (owner.pid === process.pid) return true
  try {
    process.kill(owner.pid, 0)
    return age > REUSED_PID_MS
  } catch (err) {
    return (err as { code?: unknown }).code === 'ESRCH' || age > REUSED_PID_MS
  }
}

function readOwner(fs: SpoolFs, path: string): Owner | undefined {
  try {
    const value = JSON.parse(readFile(fs, `${path}/${OWNER_FILE}`, 0, 4096).toString('utf8')) as Partial<Owner>
    return typeof value.pid === 'number' && typeof value.host === 'string' ? { pid: value.pid, host: value.host } : undefined
  } catch {
    return undefined
  }
}

/** Takes the part `name` of `root` into `into`; its new path, or undefined when another client took it first. */
export function claim(fs: SpoolFs, root: string, name: string, into: string): string | undefined {
  const target = `${into}/from-${name}`
  try {
    fs.renameSync(`${root}/${name}`, target)
    return target
  } catch {
    return undefined
  }
}

/** The segment files of a part taken over, oldest first: those of parts it had taken over itself come first. */
export function segmentsOf(fs: SpoolFs, dir: string): string[] {
  let entries: ReturnType<typeof listDir>
  try {
    entries = listDir(fs, dir)
  } catch {
    return []
  }
  const nested = entries.filter((d) => d.isDirectory() && d.name.startsWith('from-')).flatMap((d) => segmentsOf(fs, `${dir}/${d.name}`))
  const own = entries.filter((d) => d.isFile() && d.name.endsWith('.log')).map((d) => `${dir}/${d.name}`)
  return [...nested, ...own.sort()]
}

function listDir(fs: SpoolFs, dir: string) {
  return fs.readdirSync(dir, { withFileTypes: true })
}

// Nothing is left in it but its owner file and ack files: a file the spool did not write stays.
function holdsOnlySpoolFiles(fs: SpoolFs, dir: string): boolean {
  try {
    return listDir(fs, dir).every((d) => d.isFile() && (d.name === OWNER_FILE || d.name.endsWith('.ack')))
  } catch {
    return false
  }
}

/** Deletes the directories of parts taken over that hold no segment any more (nor any file the spool did not write). */
export function removeEmptyParts(fs: SpoolFs, dir: string): void {
  let entries: ReturnType<typeof listDir>
  try {
    entries = listDir(fs, dir)
  } catch {
    return
  }
  for (const d of entries) {
    if (!d.isDirectory() || !d.name.startsWith('from-')) continue
    const sub = `${dir}/${d.name}`
    removeEmptyParts(fs, sub)
    if (holdsOnlySpoolFiles(fs, sub)) fs.rmSync(sub, { recursive: true, force: true })
  }
}
