import { createHash } from 'node:crypto'
import { hostname } from 'node:os'
import { CLAIMED_SUFFIX, forgetGone, isGone } from './liveness'
import { createFile, isOwn, isWritableByOthers, readFile, writeAll, type SpoolFs } from './files'

/**
 * The spool directory holds one part a client: `part-<pid>-<random>/`, with `owner.json` (pid,
 * host, start, tenant) whose modification time is its heartbeat (moved forward every 5 s; a
 * taker only watches whether it moves, see `liveness.ts`), and the part's segments. A client
 * takes over the part of a client that is gone by renaming it into its own part (`from-<name>/`):
 * a rename succeeds once, so two survivors never both send it. It takes over only parts of its own
 * tenant (the same write key and host, see `tenantOf`) that belong to its user and that no other
 * user may write to.
 * @module
 */

const OWNER_FILE = 'owner.json'

// Parts opened by clients of this process and not closed: a part with this pid that is not here
// belongs to an earlier process of the same pid (a container restarted: its process is pid 1 again).
const livePaths = new Set<string>()

/** What a part's owner file says. */
export interface Owner {
  readonly pid: number
  readonly host: string
  readonly tenant: string
}

/**
 * The tenant of a client: who its records may be sent as. A digest of its write key and host, so
 * that the key is not written to the disk, and a part is taken over only by a client that sends
 * with the same key to the same service.
 */
export function tenantOf(writeKey: string, host: string): string {
  return createHash('sha256').update(`eventrail-spool\0${writeKey}\0${host}`).digest('hex').slice(0, 32)
}

/** The directory is another user's, or others may write to it: the spool does not use it. */
export class UntrustedDirError extends Error {
  readonly code = 'EUNTRUSTED'
}

/**
 * Makes the spool directory when missing (owner-only) and checks that it may be trusted, as ssh
 * checks `~/.ssh`: a directory of this user that no other user may write to. Records found in it
 * are sent with this client's write key, so a directory another user controls is never used.
 */
export function checkRoot(fs: SpoolFs, root: string): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 })
  verifyRoot(fs, root)
}

/** Checks, without making it, that the spool directory may be trusted (see {@link checkRoot}). */
export function verifyRoot(fs: SpoolFs, root: string): void {
  const stat = fs.statSync(root)
  if (!stat.isDirectory()) throw new UntrustedDirError(`${root} is not a directory`)
  if (!isOwn(stat))
    throw new UntrustedDirError(
      `${root} belongs to another user (uid ${stat.uid}): records planted there would be sent with this client's write key; use a directory of your own, or chown it to this user`,
    )
  if (isWritableByOthers(stat))
    throw new UntrustedDirError(
      `${root} may be written by other users (mode ${(stat.mode & 0o777).toString(8)}): records planted there would be sent with this client's write key; run chmod 700 on it`,
    )
}

/** Creates this client's part in `root` (checked by {@link checkRoot}) and returns its path. */
export function createPart(fs: SpoolFs, root: string, tenant: string): string {
  checkRoot(fs, root)
  const path = newPartPath(root)
  fs.mkdirSync(path, { mode: 0o700 })
  writeOwner(fs, `${path}/${OWNER_FILE}`, tenant)
  livePaths.add(path)
  return path
}

function newPartPath(root: string): string {
  return `${root}/part-${process.pid}-${globalThis.crypto.randomUUID().slice(0, 8)}`
}

function writeOwner(fs: SpoolFs, path: string, tenant: string): void {
  const fd = createFile(fs, path)
  try {
    const owner = Buffer.from(JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString(), tenant }))
    writeAll(fs, fd, owner, owner.length)
    // Once a part: synced before its name is (see `SyncPlan`), else a power loss may leave the
    // name of an empty owner file, and a part no client would ever take over.
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Makes the gone client's part `name` of `root` this client's part, by a rename alone: on a full
 * disk, where no part can be made, what a gone client left is still taken over and sent. Its
 * owner file is rewritten when the disk takes it; until then the part's name (this pid) says that
 * a live client holds it (see `isOrphan`). Undefined when another client took it first.
 */
export function claimAsPart(fs: SpoolFs, root: string, name: string, tenant: string): string | undefined {
  const path = newPartPath(root) + CLAIMED_SUFFIX
  try {
    fs.renameSync(`${root}/${name}`, path)
  } catch {
    return undefined
  }
  livePaths.add(path)
  const next = `${path}/${OWNER_FILE}.new`
  try {
    writeOwner(fs, next, tenant)
    fs.renameSync(next, `${path}/${OWNER_FILE}`)
  } catch {
    try {
      fs.unlinkSync(next)
    } catch {
      // Never made: nothing to remove.
    }
  }
  return path
}

/** This client is done with its part (it may now be taken over by another client of this process). */
export function releasePart(path: string): void {
  livePaths.delete(path)
  lastBeats.delete(path)
}

// The last heartbeat each part of this process was given: the next one is later, whatever the clock says.
const lastBeats = new Map<string, number>()

/**
 * Moves the part's heartbeat forward (a clock set back, or one that did not move, still moves it:
 * a taker watches whether it changes, see `liveness.ts`); false when the part is gone (another
 * client took it over).
 */
export function beat(fs: SpoolFs, path: string): boolean {
  const last = lastBeats.get(path) ?? 0
  const at = Math.max(Date.now(), last + 1000)
  try {
    fs.utimesSync(`${path}/${OWNER_FILE}`, new Date(at), new Date(at))
    lastBeats.set(path, at)
    return true
  } catch {
    lastBeats.delete(path)
    return false
  }
}

/**
 * The names of the parts in `root` that this client may take over: of its `tenant`, this user's
 * and writable by no other, and whose client is gone (its process died, or it stopped beating).
 */
export function findOrphans(fs: SpoolFs, root: string, tenant: string): string[] {
  let names: string[]
  try {
    names = fs
      .readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.startsWith('part-'))
      .map((d) => d.name)
  } catch {
    return []
  }
  forgetGone(root, new Set(names.map((name) => `${root}/${name}`)))
  return names.filter((name) => isTrusted(fs, `${root}/${name}`) && isOrphan(fs, `${root}/${name}`, tenant)).sort()
}

/** A part's directory itself (not a link to one): this user's, and no other user may write to it. */
export function isTrusted(fs: SpoolFs, path: string): boolean {
  try {
    const stat = fs.lstatSync(path)
    return stat.isDirectory() && isOwn(stat) && !isWritableByOthers(stat)
  } catch {
    return false
  }
}

function isOrphan(fs: SpoolFs, path: string, tenant: string): boolean {
  if (livePaths.has(path)) return false
  const owner = readOwner(fs, path)
  // A part of another tenant (another write key or host), or of no known tenant, is never taken:
  // its records would go out under this client's key.
  if (owner === undefined || owner.tenant !== tenant) return false
  return isGone(fs, path, owner, `${path}/${OWNER_FILE}`)
}

/** The owner file of the part at `path`: its pid, host and tenant; undefined when it cannot be read or is not one. */
export function readOwner(fs: SpoolFs, path: string): Owner | undefined {
  try {
    const value = JSON.parse(readFile(fs, `${path}/${OWNER_FILE}`, 0, 4096, 4096).toString('utf8')) as Partial<Owner>
    const { pid, host, tenant } = value
    return typeof pid === 'number' && typeof host === 'string' && typeof tenant === 'string' ? { pid, host, tenant } : undefined
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

/**
 * Where the part `name` of `root` went when another client took it over (`<part>/from-<name>`, at
 * any depth: that client's part may have been taken over in its turn); undefined when it is gone.
 */
export function findMoved(fs: SpoolFs, root: string, name: string, depth = 4): string | undefined {
  let entries: ReturnType<typeof listDir>
  try {
    entries = listDir(fs, root)
  } catch {
    return undefined
  }
  for (const d of entries) {
    if (!d.isDirectory() || !(d.name.startsWith('part-') || d.name.startsWith('from-'))) continue
    if (d.name === `from-${name}`) return `${root}/${d.name}`
    const found = depth > 1 ? findMoved(fs, `${root}/${d.name}`, name, depth - 1) : undefined
    if (found !== undefined) return found
  }
  return undefined
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
    try {
      if (holdsOnlySpoolFiles(fs, sub)) fs.rmSync(sub, { recursive: true, force: true })
    } catch {
      // The disk refuses (an I/O error): an empty part left costs a directory read, never a record.
    }
  }
}

/**
 * Deletes this client's part once no record in it waits: only what the spool wrote (its owner
 * file, ack files, parts taken over that are empty). A part that holds a file the spool did not
 * write (a newer format's segment, a note) stays, with that file.
 */
export function removePart(fs: SpoolFs, part: string): void {
  removeEmptyParts(fs, part)
  if (holdsOnlySpoolFiles(fs, part)) fs.rmSync(part, { recursive: true, force: true })
}
