import { SEGMENT_MAGIC } from './frame'
import { appendFile, closeQuietly, createFile, errorCode, writeAll, type SpoolFs } from './files'
import { SpoolWriteError, type Segment } from './segment'

/** The ack file of a segment file. */
export function ackPathOf(path: string): string {
  return path.replace(/\.log$/, '.ack')
}

/**
 * Creates the next own segment file in `dir` (`000001.log`, … from `next()`), its magic written,
 * never over a file that is there already: a part taken over as this client's own holds its first
 * owner's segments, whose names are skipped. Throws a {@link SpoolWriteError} when the disk refuses.
 */
export function createSegmentFile(fs: SpoolFs, dir: string, next: () => number): { path: string; fd: number } {
  let path = ''
  let fd = -1
  try {
    if (dir === '') throw Object.assign(new Error('no part to write to'), { code: 'ENOENT' })
    for (let tries = 0; fd < 0; tries++) {
      path = `${dir}/${String(next()).padStart(6, '0')}.log`
      try {
        fd = createFile(fs, path)
      } catch (err) {
        if (errorCode(err) !== 'EEXIST' || tries >= 1000) throw err
      }
    }
    writeAll(fs, fd, SEGMENT_MAGIC, SEGMENT_MAGIC.length)
  } catch (err) {
    throw new SpoolWriteError(errorCode(err), `cannot create ${path}: ${String((err as Error)?.message ?? err)}`)
  }
  return { path, fd }
}

/** Appends `ordinals` (u32 each) to the segment's ack file, opened on the first ack. Never throws. */
export function appendAcks(fs: SpoolFs, segment: Segment, ordinals: Buffer): void {
  try {
    if (segment.ackFd < 0) segment.ackFd = appendFile(fs, segment.ackPath)
    // Not synced on its own: a lost ack costs at most a duplicate after a crash (same messageId), never a loss.
    writeAll(fs, segment.ackFd, ordinals, ordinals.length)
  } catch {
    // A lost ack costs at most a duplicate after a crash: never an error.
  }
}

/** Closes a segment's descriptors (forgetting them in `dirty`) and deletes its file and its ack file. */
export function removeSegmentFiles(fs: SpoolFs, segment: Segment, dirty: Set<number>): void {
  for (const fd of [segment.fd, segment.ackFd]) {
    if (fd < 0) continue
    dirty.delete(fd)
    closeQuietly(fs, fd)
  }
  segment.fd = segment.ackFd = -1
  for (const path of [segment.path, segment.ackPath]) {
    try {
      fs.unlinkSync(path)
    } catch {
      // Gone already (the ack file was never written), or the disk refuses: nothing to send.
    }
  }
}
