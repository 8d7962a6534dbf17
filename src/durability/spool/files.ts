import * as nodeFs from 'node:fs'

/** The file-system calls the spool makes: `node:fs`, or a stand-in a test gives (a full disk). */
export type SpoolFs = Pick<
  typeof nodeFs,
  | 'openSync'
  | 'writeSync'
  | 'readSync'
  | 'closeSync'
  | 'fstatSync'
  | 'ftruncateSync'
  | 'fdatasync'
  | 'fsync'
  | 'fsyncSync'
  | 'mkdirSync'
  | 'readdirSync'
  | 'renameSync'
  | 'rmSync'
  | 'unlinkSync'
  | 'statSync'
  | 'lstatSync'
  | 'utimesSync'
  | 'constants'
>

/** The real file system. */
export const realFs: SpoolFs = nodeFs

/**
 * Opens a new file for appending, never one that is there already and never through a link
 * planted at its name (`O_EXCL`, `O_NOFOLLOW`); readable by its owner only (spooled messages
 * carry personal data).
 */
export function createFile(fs: SpoolFs, path: string): number {
  const { O_CREAT, O_EXCL, O_WRONLY, O_APPEND, O_NOFOLLOW } = fs.constants
  return fs.openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_APPEND | (O_NOFOLLOW ?? 0), 0o600)
}

/**
 * Opens a file to append to, creating it when missing; a link at its name is refused, and a FIFO
 * planted there does not block the open (`O_NONBLOCK`: it fails with no reader).
 */
export function appendFile(fs: SpoolFs, path: string): number {
  const { O_CREAT, O_WRONLY, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = fs.constants
  return fs.openSync(path, O_CREAT | O_WRONLY | O_APPEND | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0), 0o600)
}

/**
 * A file the spool will not read: not a regular file (a FIFO, a device, a directory, a link),
 * another user's, or larger than a file of the spool can be. It is left alone.
 */
export class ForeignFileError extends Error {
  readonly code = 'EFOREIGN'
}

/**
 * Reads `length` bytes of a file from `position`, or the whole file. Only a regular file of this
 * user of at most `maxSize` bytes is read: a link at its name is refused (`O_NOFOLLOW`), and a
 * FIFO planted there does not block the open (`O_NONBLOCK`); anything else throws a
 * {@link ForeignFileError}.
 */
export function readFile(fs: SpoolFs, path: string, position = 0, length = Infinity, maxSize = Infinity): Buffer {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants
  const fd = fs.openSync(path, O_RDONLY | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0))
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new ForeignFileError(`${path} is not a regular file`)
    if (!isOwn(stat)) throw new ForeignFileError(`${path} belongs to another user (uid ${stat.uid})`)
    if (stat.size > maxSize) throw new ForeignFileError(`${path} has ${stat.size} bytes: a file of the spool has at most ${maxSize}`)
    const size = stat.size
    const want = Math.max(0, Math.min(length, size - position))
    const buffer = Buffer.allocUnsafe(want)
    let got = 0
    while (got < want) {
      const n = fs.readSync(fd, buffer, got, want - got, position + got)
      if (n === 0) break
      got += n
    }
    return got === want ? buffer : buffer.subarray(0, got)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * This process's user id; undefined where the platform has none (Windows), or where the runtime
 * does not tell it (Deno without `--allow-sys`): the mode check alone then applies.
 */
const uid: number | undefined = (() => {
  try {
    return typeof process.getuid === 'function' ? process.getuid() : undefined
  } catch {
    return undefined
  }
})()

/** Whether a file or directory belongs to this process's user (always, where users have no ids). */
export function isOwn(stat: { readonly uid: number }): boolean {
  return uid === undefined || stat.uid === uid
}

/** Whether others than the owner may write to it (group or world write bit; never on Windows). */
export function isWritableByOthers(stat: { readonly mode: number }): boolean {
  return process.platform !== 'win32' && (stat.mode & 0o022) !== 0
}

/** Writes all of `buffer[0, length)` to `fd`; a short write is continued, an error thrown. */
export function writeAll(fs: SpoolFs, fd: number, buffer: Uint8Array, length: number): void {
  let done = 0
  while (done < length) done += fs.writeSync(fd, buffer, done, length - done)
}

/** Closes `fd`, ignoring an error: nothing is left to do with it. */
export function closeQuietly(fs: SpoolFs, fd: number): void {
  try {
    fs.closeSync(fd)
  } catch {
    // Already closed, or the disk went away: the descriptor is gone either way.
  }
}

/**
 * Syncs the entries of directory `dir` (`fsync` on the directory: the names of files made, renamed
 * or deleted in it), then calls `done` with the error, if any. Where a directory cannot be opened
 * (Windows), or it is gone (its part was taken over and moved), there is nothing to sync here.
 */
export function syncDir(fs: SpoolFs, dir: string, done: (err: Error | null) => void): void {
  const { O_RDONLY, O_DIRECTORY } = fs.constants
  let fd: number
  try {
    fd = fs.openSync(dir, O_RDONLY | (O_DIRECTORY ?? 0))
  } catch (err) {
    const code = errorCode(err)
    return done(code === 'EISDIR' || code === 'EPERM' || code === 'EACCES' || code === 'ENOENT' ? null : (err as Error))
  }
  fs.fsync(fd, (err) => {
    closeQuietly(fs, fd)
    done(err)
  })
}

/** The `code` of a file-system error (`ENOSPC`, `EROFS` …), else `'EIO'`. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : 'EIO'
}
