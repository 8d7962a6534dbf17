import { hostname } from 'node:os'
import type { SpoolFs } from './files'

/**
 * Whether the client that owns a part is gone. A part's heartbeat is the modification time of its
 * owner file, which its client moves forward every 5 s. Another host's clock (or this one's,
 * set wrong) says nothing about when that was: a heartbeat is never compared with this clock, only
 * with itself. A client that looks at a part notes its heartbeat and when it saw it (by its own
 * monotonic clock); the part's client is gone only once the heartbeat has not moved for a whole
 * silence watched here. On this host a dead pid needs no watching.
 * @module
 */

/** Test-only knobs (the silences below): not part of the API. @internal */
export const takeoverTiming = {
  /** Another host's part is taken over once its heartbeat has not moved for this long, watched here. */
  staleMs: 60_000,
  /** On this host, a part whose pid is alive is taken over only past this silence (the pid was reused). */
  reusedPidMs: 10 * 60_000,
}

interface Seen {
  readonly beat: number
  readonly since: number
}

// The heartbeat each part had when a client of this process first saw it so, by path.
const seen = new Map<string, Seen>()

/** How long (ms, by this process's monotonic clock) the part's heartbeat `beat` has not moved. */
function silenceOf(path: string, beat: number): number {
  const now = performance.now()
  const last = seen.get(path)
  if (last === undefined || last.beat !== beat) {
    seen.set(path, { beat, since: now })
    return 0
  }
  return now - last.since
}

/** Forgets the parts of `root` that are no longer there (taken over, or gone): `present` are. */
export function forgetGone(root: string, present: ReadonlySet<string>): void {
  for (const path of seen.keys()) if (path.startsWith(`${root}/`) && !present.has(path)) seen.delete(path)
}

/** The name of a part that a client claimed by a rename alone (see `claimAsPart`): its pid holds it. */
export const CLAIMED_SUFFIX = '-claimed'

/** The pids that may hold a part: its owner file's, and the one in its name (a part claimed by a rename). */
export function pidsOf(path: string, ownerPid: number): number[] {
  const match = /\/part-(\d+)-[^/]*-claimed$/.exec(path)
  const named = match === null ? undefined : Number(match[1])
  return named === undefined || named === ownerPid ? [ownerPid] : [ownerPid, named]
}

/** Whether a process of this host with this pid is running (another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: another user's live process.
    return (err as { code?: unknown }).code !== 'ESRCH'
  }
}

/**
 * Whether the client of the part at `path` (its owner file `ownerFile` says `pid`, `host`) is
 * gone; the first look at a part, or at a heartbeat that moved, only notes it.
 */
export function isGone(fs: SpoolFs, path: string, owner: { readonly pid: number; readonly host: string }, ownerFile: string): boolean {
  let beat: number
  try {
    beat = fs.lstatSync(ownerFile).mtimeMs
  } catch {
    // The owner file went between the two looks (the part is being taken over): not now.
    return false
  }
  const silence = silenceOf(path, beat)
  // Another host: only the heartbeat can tell, watched for a whole silence.
  if (owner.host !== hostname()) return silence > takeoverTiming.staleMs
  // This host: the pids tell. A live process whose event loop was blocked keeps its part; only a
  // pid whose heartbeat has not moved for long (a reused pid) does not. This process's own pid,
  // in a part no client of it holds, is an earlier process's (a container restarted as pid 1).
  for (const pid of pidsOf(path, owner.pid)) {
    if (pid !== process.pid && isAlive(pid) && silence <= takeoverTiming.reusedPidMs) return false
  }
  return true
}
