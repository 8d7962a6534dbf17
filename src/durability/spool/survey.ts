import { hostname } from 'node:os'
import { readFile, type SpoolFs } from './files'
import { FRAME_HEADER_BYTES, MAX_SEGMENT_FILE_BYTES, readFrames, SEGMENT_MAGIC } from './frame'
import { isAlive, pidsOf } from './liveness'
import { isTrusted, readOwner, segmentsOf, verifyRoot, type Owner } from './parts'
import { recordProblem } from './record-check'
import { ackPathOf, readAcks } from './segment-files'

/**
 * A read-only look at a spool directory, for `eventrail spool`: its parts, their owners, their
 * segments and the records that wait. It reads as a client taking a part over reads: the same
 * trust checks (the directory, each part, each file: no link followed, only this user's regular
 * files of the format's size), the same record reader and checks. It takes nothing over, acks
 * nothing, writes nothing.
 * @module
 */

/** A record that waits, as it will be sent. */
export interface WaitingRecord {
  readonly text: string
  readonly isAlias: boolean
}

/** One segment file. */
export interface SegmentSurvey {
  /** Relative to the spool directory. */
  readonly file: string
  readonly bytes: number
  /** Records in it (whole, or failing their checksum). */
  readonly records: number
  /** Of them, those that had their outcome (in its ack file). */
  readonly acked: number
  /** Records without an outcome, whole and a message: what a client would send. */
  readonly waiting: number
  /** Records whose bytes do not match their checksum: never sent. */
  readonly torn: number
  /** Whether the file ends in a record cut off (or of an impossible length): nothing after it is read. */
  readonly cutOff: boolean
  /** Whole records without an outcome that are not a message of their kind: never sent. */
  readonly invalid: number
  /** Why the file was not read (a link, another user's, too large, not a segment). */
  readonly problem?: string
}

/** How a part's client is: alive (its pid runs on this host), gone, or unknown (another host: only its heartbeat can tell). */
export type OwnerState = 'alive' | 'gone' | 'another host'

/** One part of the directory. */
export interface PartSurvey {
  readonly name: string
  readonly owner?: Owner & { readonly state: OwnerState; readonly heartbeatAgeMs: number | undefined }
  readonly segments: readonly SegmentSurvey[]
  readonly waiting: number
  readonly bytes: number
  readonly torn: number
  /** Why the part is not read (a link, another user's, writable by others) or has no owner to tell. */
  readonly problem?: string
}

/**
 * Looks at every part of the spool directory `root`. `onWaiting`, when given, receives each record
 * that waits, in the order a client would send them. Throws an `UntrustedDirError` when the
 * directory may not be trusted (another user's, writable by others), as a client would refuse it.
 */
export function surveySpool(
  fs: SpoolFs,
  root: string,
  onWaiting?: (record: WaitingRecord, part: PartSurvey | string) => void,
): PartSurvey[] {
  verifyRoot(fs, root)
  const names = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.name.startsWith('part-'))
    .map((d) => d.name)
    .sort()
  return names.map((name) => surveyPart(fs, root, name, onWaiting))
}

function surveyPart(fs: SpoolFs, root: string, name: string, onWaiting?: (record: WaitingRecord, part: string) => void): PartSurvey {
  const path = `${root}/${name}`
  const empty = { name, segments: [], waiting: 0, bytes: 0, torn: 0 }
  if (!isTrusted(fs, path)) return { ...empty, problem: 'not read: a link, not a directory, another user’s, or writable by others' }
  const found = readOwner(fs, path)
  const owner = found === undefined ? undefined : { ...found, ...ownerState(fs, path, found) }
  const segments = segmentsOf(fs, path).map((file) => surveySegment(fs, file, root, (record) => onWaiting?.(record, name)))
  const sum = (key: 'waiting' | 'bytes' | 'torn'): number => segments.reduce((n, s) => n + s[key], 0)
  return {
    name,
    ...(owner === undefined ? { problem: 'its owner file cannot be read: no client takes it over' } : { owner }),
    segments,
    waiting: sum('waiting'),
    bytes: sum('bytes'),
    torn: segments.reduce((n, s) => n + s.torn + (s.cutOff ? 1 : 0), 0),
  }
}

function ownerState(fs: SpoolFs, path: string, owner: Owner): { state: OwnerState; heartbeatAgeMs: number | undefined } {
  let heartbeatAgeMs: number | undefined
  try {
    heartbeatAgeMs = Math.max(0, Math.round(Date.now() - fs.lstatSync(`${path}/owner.json`).mtimeMs))
  } catch {
    heartbeatAgeMs = undefined
  }
  if (owner.host !== hostname()) return { state: 'another host', heartbeatAgeMs }
  const alive = pidsOf(path, owner.pid).some((pid) => pid !== process.pid && isAlive(pid))
  return { state: alive ? 'alive' : 'gone', heartbeatAgeMs }
}

/** Reads one segment file as a take-over does, checksums and all; `onWaiting` gets each record that waits. */
export function surveySegment(fs: SpoolFs, path: string, root: string, onWaiting?: (record: WaitingRecord) => void): SegmentSurvey {
  const file = path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path
  const none = { file, bytes: 0, records: 0, acked: 0, waiting: 0, torn: 0, cutOff: false, invalid: 0 }
  let data: Buffer
  try {
    data = readFile(fs, path, 0, Infinity, MAX_SEGMENT_FILE_BYTES)
  } catch (err) {
    return { ...none, problem: `not read: ${String((err as Error)?.message ?? err)}` }
  }
  if (data.length < SEGMENT_MAGIC.length || !data.subarray(0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC))
    return { ...none, bytes: data.length, problem: 'not a segment of this format: left alone' }
  const acked = readAcks(fs, ackPathOf(path), data.length)
  const run = readFrames(data.subarray(SEGMENT_MAGIC.length), 0, Infinity, () => true, true)
  let waiting = 0
  let invalid = 0
  let ackedCount = 0
  for (let ordinal = 0; ordinal < run.ordinal; ordinal++) if (acked.has(ordinal)) ackedCount += 1
  for (const frame of run.frames) {
    if (acked.has(frame.ordinal)) continue
    // The record's message bytes: its length less its header and kind byte (as `Backlog` reads it).
    if (recordProblem(frame.text, frame.isAlias, frame.bytes - FRAME_HEADER_BYTES - 1) !== undefined) {
      invalid += 1
      continue
    }
    waiting += 1
    onWaiting?.({ text: frame.text, isAlias: frame.isAlias })
  }
  return { file, bytes: data.length, records: run.ordinal, acked: ackedCount, waiting, torn: run.skipped, cutOff: run.bad, invalid }
}

/**
 * The records that wait in the spool `root`, a segment at a time (at most 4 MiB of text), in the
 * order a client would send them; only those of `tenant` when given. Read as a client taking the
 * parts over would read them (a part whose owner cannot be read says whose it is to nobody, and
 * is not read), but nothing is taken over, acked or deleted.
 * @throws UntrustedDirError when the directory may not be trusted.
 */
export function* waitingRecords(
  fs: SpoolFs,
  root: string,
  tenant?: string,
): Generator<{ readonly tenant: string; readonly texts: string[]; readonly isAlive: boolean }> {
  verifyRoot(fs, root)
  const names = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('part-'))
    .map((d) => d.name)
    .sort()
  for (const name of names) {
    const path = `${root}/${name}`
    if (!isTrusted(fs, path)) continue
    const owner = readOwner(fs, path)
    if (owner === undefined || (tenant !== undefined && owner.tenant !== tenant)) continue
    // A live client (or one on another host) may send these records itself too.
    const isAlive = ownerState(fs, path, owner).state !== 'gone'
    for (const file of segmentsOf(fs, path)) {
      const texts: string[] = []
      surveySegment(fs, file, root, (record) => texts.push(record.text))
      if (texts.length > 0) yield { tenant: owner.tenant, texts, isAlive }
    }
  }
}
