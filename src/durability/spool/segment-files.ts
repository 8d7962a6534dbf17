import { SEGMENT_MAGIC } from './frame'
import { appendFile, closeQuietly, createFile, errorCode, readFile, writeAll, type SpoolFs } from './files'
import { SpoolWriteError, type Segment } from './segment'

/** The ack file of a segment file. */
export function ackPathOf(path: string): string {
  return path.replace(/\.log$/, '.ack')
}

// An ack file's entries are u32 words: the ordinal (21 bits, see RECORDS_PER_SEGMENT) and 11
// check bits, the top one always set and ten that any one flipped bit of the ordinal changes: a
// flipped bit makes the entry unreadable (at worst a duplicate), never another record's ack.
const CHECK_TABLES = [0, 8, 16].map((shift) =>
  Int32Array.from({ length: 256 }, (_, byte) => {
    let check = 0
    for (let bit = 0; bit < 8; bit++) if ((byte >> bit) & 1) check ^= ((shift + bit + 1) * 0x2b5) & 0x3ff || 0x3ff
    return check
  }),
)

function checkOf(ordinal: number): number {
  return CHECK_TABLES[0][ordinal & 0xff] ^ CHECK_TABLES[1][(ordinal >>> 8) & 0xff] ^ CHECK_TABLES[2][(ordinal >>> 16) & 0x1f]
}

/** The ack file entry of the record `ordinal` (< 2^21). */
export function ackWord(ordinal: number): number {
  return (ordinal | ((0x400 | checkOf(ordinal)) << 21)) >>> 0
}

/** The ordinal an ack file entry names; -1 when the entry is damaged. */
export function ordinalOfAck(word: number): number {
  const ordinal = word & 0x1fffff
  return word >>> 21 === (0x400 | checkOf(ordinal)) ? ordinal : -1
}

/**
 * The ordinals of a segment's records that have an outcome (its ack file, at most `maxSize`
 * bytes); none when it cannot be read. A damaged entry is not read: its record is sent again.
 */
export function readAcks(fs: SpoolFs, ackPath: string, maxSize: number): Set<number> {
  const acked = new Set<number>()
  let acks: Buffer
  try {
    acks = readFile(fs, ackPath, 0, Infinity, maxSize)
  } catch {
    // No ack file (none of its records had an outcome), or one the spool did not write (a link, a
    // FIFO, another user's, too large): not read. Its records are all sent; at worst a duplicate.
    return acked
  }
  for (let at = 0; at + 4 <= acks.length; at += 4) {
    const ordinal = ordinalOfAck(acks.readUInt32LE(at))
    if (ordinal >= 0) acked.add(ordinal)
  }
  return acked
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

/**
 * Appends `ordinals` (entries of {@link ackWord}) to the segment's ack file, opened on the first
 * ack (`made` is then called: its directory changed). Never throws.
 */
export function appendAcks(fs: SpoolFs, segment: Segment, ordinals: Buffer, made: (dir: string) => void): void {
  try {
    if (segment.ackFd < 0) {
      segment.ackFd = appendFile(fs, segment.ackPath)
      made(dirOf(segment.ackPath))
    }
    // Not synced on its own: a lost ack costs at most a duplicate after a crash (same messageId), never a loss.
    writeAll(fs, segment.ackFd, ordinals, ordinals.length)
  } catch {
    // A lost ack costs at most a duplicate after a crash: never an error.
  }
}

/** The directory of a file of the spool. */
export function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'))
}

/**
 * Closes a segment's descriptors (`forget` is told of each) and hands its file and its ack file to
 * `remove`, which deletes them once what was written before is synced (see `SyncPlan.remove`).
 */
export function removeSegmentFiles(fs: SpoolFs, segment: Segment, forget: (fd: number) => void, remove: (paths: string[]) => void): void {
  for (const fd of [segment.fd, segment.ackFd]) {
    if (fd < 0) continue
    forget(fd)
    closeQuietly(fs, fd)
  }
  segment.fd = segment.ackFd = -1
  remove([segment.path, segment.ackPath])
}

/**
 * Appends `length` bytes of `buffer` (whole records) to `segment`'s file. A write cut short (a
 * full disk) leaves part of a record: it is cut off again, or, should even that fail, `seal` runs
 * (a new segment is begun next time). The segment is then as before.
 * @throws SpoolWriteError when the disk cannot take it.
 */
export function appendRecords(fs: SpoolFs, segment: Segment, buffer: Buffer, length: number, seal: () => void): void {
  try {
    writeAll(fs, segment.fd, buffer, length)
  } catch (err) {
    try {
      fs.ftruncateSync(segment.fd, segment.size)
    } catch {
      seal()
    }
    throw new SpoolWriteError(errorCode(err), `cannot append to ${segment.path}: ${String((err as Error)?.message ?? err)}`)
  }
}
