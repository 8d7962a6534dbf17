import { closeQuietly, errorCode, syncDir, type SpoolFs } from './files'
import type { Segment } from './segment'

/** A sync the disk refused: what could not be synced, and why. */
export interface SyncFailure {
  /** The file-system error's code (`EIO`, `ENOSPC` …). */
  readonly code: string
  /** The file or directory that could not be synced. */
  readonly path: string
  /** Own segments whose records since their last good sync may not survive a power loss. */
  readonly segments: readonly Segment[]
}

/**
 * What a power loss needs synced, and the syncs themselves: the data of own segments written since
 * their last sync (`fdatasync`), and the directories whose entries changed (a segment, a part, an
 * ack file made; a part renamed in a take-over): `fsync` on the directory, once per file made, not
 * per record. A segment's records are durable up to `Segment.synced` once its name is (`named`).
 * A sync the disk refuses is never taken as done (after a failed `fsync` the kernel may have
 * dropped the pages): it is handed to `failed`, which writes those records again.
 */
export class SyncPlan {
  readonly #fs: SpoolFs
  /** Own segments written since their last sync, by descriptor. */
  readonly #data = new Map<number, Segment>()
  /** Directories whose entries changed since their last sync, with the own segments made in them. */
  readonly #dirs = new Map<string, Segment[]>()
  /** Syncs under way: a sync waits for those begun before it (a flush right after a tick's sync). */
  readonly #inflight = new Set<Promise<void>>()
  readonly #failures: SyncFailure[] = []
  /** Files to delete once a sync that began after they were handed over went well. */
  #removals: string[] = []
  /** Called after a sync with what the disk refused. */
  failed: ((failures: readonly SyncFailure[]) => void) | undefined

  constructor(fs: SpoolFs) {
    this.#fs = fs
  }

  /** Records were appended to `segment` through `fd`. */
  written(fd: number, segment: Segment): void {
    this.#data.set(fd, segment)
  }

  /** An entry of `dir` changed (a file made, renamed, deleted); `segment`: an own segment made there. */
  changed(dir: string, segment?: Segment): void {
    let list = this.#dirs.get(dir)
    if (list === undefined) this.#dirs.set(dir, (list = []))
    if (segment !== undefined) list.push(segment)
  }

  /**
   * Deletes `paths` (a segment done, and its ack file): now, or with `afterSync` after the next
   * sync that goes well, so that the deletion never reaches the disk before what was written
   * before it (the copies of its kept records, the part they are in): a power loss between the
   * two cannot lose them.
   */
  remove(paths: string[], afterSync: boolean): void {
    if (afterSync) this.#removals.push(...paths)
    else this.#unlink(paths)
  }

  /** `fd` is closed without a sync (its segment is deleted: nothing of it needs to survive). */
  forget(fd: number): void {
    this.#data.delete(fd)
  }

  /** The segment is sealed: its data is synced now, then `fd` closed. */
  seal(fd: number, segment: Segment): void {
    if (!this.#data.delete(fd)) return closeQuietly(this.#fs, fd)
    this.#track(this.#syncData(fd, segment, true))
  }

  /**
   * Syncs what was written and the directories changed; resolves once those and every earlier
   * sync are done. After a failure (its records written again by `failed`), once more, for them.
   */
  sync(again = true): Promise<void> {
    const removals = this.#removals
    this.#removals = []
    for (const [fd, segment] of this.#data) this.#track(this.#syncData(fd, segment, false))
    this.#data.clear()
    if (this.#dirs.size > 0) this.#track(this.#syncDirs())

    return Promise.all(this.#inflight).then(() => {
      const failed = this.#report()
      if (failed) this.#removals.unshift(...removals)
      else this.#unlink(removals)
      return failed && again ? this.sync(false) : undefined
    })
  }

  #unlink(paths: readonly string[]): void {
    for (const path of paths) {
      try {
        this.#fs.unlinkSync(path)
        this.changed(path.slice(0, path.lastIndexOf('/')))
      } catch {
        // Gone already (an ack file never written), or the disk refuses: nothing in it to send.
      }
    }
  }

  #track(job: Promise<void>): void {
    this.#inflight.add(job)
    void job.then(() => this.#inflight.delete(job))
  }

  #report(): boolean {
    if (this.#failures.length === 0) return false
    const failures = this.#failures.splice(0)
    this.failed?.(failures)
    return true
  }

  #syncData(fd: number, segment: Segment, close: boolean): Promise<void> {
    const size = segment.size
    const total = segment.total
    return new Promise((resolve) =>
      this.#fs.fdatasync(fd, (err) => {
        if (close) closeQuietly(this.#fs, fd)
        if (err) this.#failures.push({ code: errorCode(err), path: segment.path, segments: [segment] })
        else if (segment.unsafe !== true && size > (segment.synced ?? 0)) Object.assign(segment, { synced: size, syncedTotal: total })
        resolve()
      }),
    )
  }

  // One directory after the other, deeper ones first: a part renamed into another is synced where
  // it went before where it left, so a power loss between the two leaves it in both (at worst
  // duplicates), never in neither. After a failure the rest wait for the next sync: where a part
  // left is never synced before where it went.
  async #syncDirs(): Promise<void> {
    const dirs = [...this.#dirs].sort(([a], [b]) => b.split('/').length - a.split('/').length)
    this.#dirs.clear()
    for (let k = 0; k < dirs.length; k++) {
      const [dir, segments] = dirs[k]
      const err = await new Promise<Error | null>((resolve) => syncDir(this.#fs, dir, resolve))
      if (err === null) {
        for (const segment of segments) segment.named = true
        continue
      }
      this.#failures.push({ code: errorCode(err), path: dir, segments })
      // Tried again with the next sync: their entries are not taken as safe meanwhile.
      for (const [later, made] of dirs.slice(k)) for (const segment of [undefined, ...made]) this.changed(later, segment)
      return
    }
  }
}
