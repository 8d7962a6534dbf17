import type { ImportProgress, ImportSummary } from './types'

/** What the command knows of how far into its input an import is. */
export interface InputBytes {
  /** Bytes of the file on disk (compressed for `.gz`); undefined for standard input. */
  readonly size: number | undefined
  /** Bytes of the file read so far (compressed for `.gz`). */
  readonly read: number
  /** Bytes the lines were read from so far (decompressed for `.gz`: `read`, otherwise). */
  readonly taken: number
  /** Bytes of the lines skipped up to the checkpoint (a resumed import). */
  readonly skipped: number
  /** Bytes of the lines that have their outcome (sent, refused, failed or skipped) in this run. */
  readonly done: number
}

/** How far an import is: a share of its input, and the time left. */
export interface InputPosition {
  /** Bytes of the file read so far (compressed for `.gz`). */
  readonly bytesRead: number
  readonly size: number | undefined
  /** The share of the input whose lines have their outcome, 0 to 1; undefined when the size is unknown. */
  readonly fraction: number | undefined
  /** Seconds left at the pace so far; undefined while too little is known (see {@link ETA_AFTER_MS}), or when the size is. */
  readonly etaSeconds: number | undefined
}

/** The time left is shown once the import has run this long… */
export const ETA_AFTER_MS = 3000
/** …and done this share of what it has to do: before, the pace is mostly the start's (loading, the first requests). */
export const ETA_AFTER_FRACTION = 0.01

/**
 * How far an import is: the bytes of the lines that have their outcome (not the bytes read, which
 * run ahead by what is in flight) over the input's size; for a `.gz` file, over the size its
 * content will have at the ratio read so far. Pure.
 */
export function inputPosition(bytes: InputBytes, elapsedMs: number): InputPosition {
  const { size, read, taken, skipped, done } = bytes
  if (size === undefined || size <= 0) return { bytesRead: read, size, fraction: undefined, etaSeconds: undefined }
  const total = read > 0 && taken !== read ? (taken * size) / read : size
  const fraction = Math.min(1, (skipped + done) / total)
  const toDo = total - skipped
  const isKnown = elapsedMs >= ETA_AFTER_MS && toDo > 0 && done / toDo >= ETA_AFTER_FRACTION
  const etaSeconds = isKnown && fraction < 1 ? ((toDo - done) * elapsedMs) / done / 1000 : undefined
  return { bytesRead: read, size, fraction, etaSeconds }
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US')

/** A count with its noun, in agreement: `1 line`, `2 lines`, `12,000 bytes`. */
export function counted(n: number, noun: string): string {
  return `${count(n)} ${n === 1 ? noun : `${noun}s`}`
}
const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`

/** `m:ss` (or `h:mm:ss`) of a number of seconds. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const rest = String(s % 60).padStart(2, '0')
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`
}

/**
 * One line of progress: lines read, sent (with `dryRun`, "would send"), refused, failed, skipped
 * (when any), MB, messages/s and, when the input's size is known, how far it is and the time left
 * ("estimating" at first). Pure.
 */
export function progressLine(p: ImportProgress, input: InputPosition, dryRun = false): string {
  const parts = [
    `read ${count(p.read)}`,
    `${dryRun ? 'would send' : 'sent'} ${count(p.sent)}`,
    `refused ${count(p.refused)}`,
    `failed ${count(p.failed)}`,
    ...(p.skipped > 0 ? [`skipped ${count(p.skipped)}`] : []),
    megabytes(p.bytes),
    `${count(p.rate)} msg/s`,
  ]
  if (input.fraction !== undefined) {
    parts.push(`${Math.floor(input.fraction * 100)}%`)
    if (input.fraction < 1) parts.push(input.etaSeconds === undefined ? 'ETA estimating…' : `ETA ${formatDuration(input.etaSeconds)}`)
  }
  return parts.join(' · ')
}

/** What the summary says besides the counts: the files written, and whether they could be. */
export interface SummaryNotes {
  readonly report?: string
  /** Why the report could not be written in full. */
  readonly reportError?: string
  readonly checkpoint?: string
  /** The line of the last checkpoint written, if any. */
  readonly checkpointLine?: number
  /** Why the last checkpoint could not be written. */
  readonly checkpointError?: string
  readonly dryRun?: boolean
  /** What the skipped items were. */
  readonly skippedNote?: string
}

/** The table printed at the end: read, sent, refused, failed, bytes, time, rate, and the files written. Pure. */
export function summaryTable(s: ImportSummary, notes: SummaryNotes = {}): string {
  const see = notes.report && notes.reportError === undefined ? `  (see ${notes.report})` : ''
  const rows: [string, string][] = [
    ['read', counted(s.read, 'line')],
    [notes.dryRun ? 'would send' : 'sent', count(s.sent)],
    ['refused', count(s.refused) + (s.refused > 0 ? see : '')],
    ['failed', count(s.failed) + (s.failed > 0 ? see : '')],
  ]
  if (s.skipped > 0) rows.push(['skipped', count(s.skipped) + (notes.skippedNote ? `  (${notes.skippedNote})` : '')])
  rows.push(['bytes', megabytes(s.bytes)], ['time', `${(s.elapsedMs / 1000).toFixed(1)} s`], ['rate', `${count(s.rate)} messages/s`])
  if (s.abandoned > 0) rows.push(['in flight', `${count(s.abandoned)} without an outcome (sent again on --resume)`])
  if (notes.checkpoint) {
    const last = notes.checkpointLine === undefined ? 'none was written' : `the last written is line ${count(notes.checkpointLine)}`
    rows.push([
      'checkpoint',
      notes.checkpointError === undefined
        ? `line ${count(notes.checkpointLine ?? s.watermark)} (${notes.checkpoint})`
        : `NOT WRITTEN to ${notes.checkpoint}: ${notes.checkpointError} (${last})`,
    ])
  }
  if (notes.report && notes.reportError !== undefined) {
    rows.push(['report', `NOT WRITTEN in full to ${notes.report}: ${notes.reportError}`])
  }
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n') + '\n'
}

/** A progress or summary event of `--json`: one JSON object a line. Pure. */
export function jsonEvent(
  event: 'progress' | 'summary',
  p: ImportProgress | ImportSummary,
  input: InputPosition,
  extra: Record<string, unknown> = {},
): string {
  return (
    JSON.stringify({
      event,
      ...p,
      inputBytesRead: input.bytesRead,
      inputSize: input.size ?? null,
      percent: input.fraction === undefined ? null : Math.floor(input.fraction * 1000) / 10,
      etaSeconds: input.etaSeconds === undefined ? null : Math.round(input.etaSeconds),
      ...extra,
    }) + '\n'
  )
}
