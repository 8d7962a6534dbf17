import type { ImportProgress, ImportSummary } from './types'

/** How far into the input the import is, when the input's size is known. */
export interface InputPosition {
  readonly bytesRead: number
  readonly size: number | undefined
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US')
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
 * One line of progress: lines read, sent, refused, failed, MB, messages/s and, when the input's
 * size is known, how far it is and the time left. Pure.
 */
export function progressLine(p: ImportProgress, input: InputPosition): string {
  const parts = [
    `read ${count(p.read)}`,
    `sent ${count(p.sent)}`,
    `refused ${count(p.refused)}`,
    `failed ${count(p.failed)}`,
    megabytes(p.bytes),
    `${count(p.rate)} msg/s`,
  ]
  if (input.size !== undefined && input.size > 0) {
    const fraction = Math.min(1, input.bytesRead / input.size)
    parts.push(`${Math.floor(fraction * 100)}%`)
    const seconds = p.elapsedMs / 1000
    if (fraction > 0 && fraction < 1) parts.push(`ETA ${formatDuration((seconds * (1 - fraction)) / fraction)}`)
  }
  return parts.join(' · ')
}

/** The table printed at the end: read, sent, refused, failed, bytes, time, rate. Pure. */
export function summaryTable(s: ImportSummary, notes: { report?: string; checkpoint?: string; dryRun?: boolean } = {}): string {
  const rows: [string, string][] = [
    ['read', `${count(s.read)} lines`],
    [notes.dryRun ? 'valid' : 'sent', count(s.sent)],
    ['refused', count(s.refused) + (s.refused > 0 && notes.report ? `  (see ${notes.report})` : '')],
    ['failed', count(s.failed) + (s.failed > 0 && notes.report ? `  (see ${notes.report})` : '')],
    ['bytes', megabytes(s.bytes)],
    ['time', `${(s.elapsedMs / 1000).toFixed(1)} s`],
    ['rate', `${count(s.rate)} messages/s`],
  ]
  if (s.abandoned > 0) rows.push(['in flight', `${count(s.abandoned)} without an outcome (sent again on --resume)`])
  if (notes.checkpoint) rows.push(['checkpoint', `line ${count(s.watermark)} (${notes.checkpoint})`])
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n') + '\n'
}

/** A progress or summary event of `--json`: one JSON object a line. Pure. */
export function jsonEvent(event: 'progress' | 'summary', p: ImportProgress | ImportSummary, input: InputPosition): string {
  return JSON.stringify({ event, ...p, inputBytesRead: input.bytesRead, inputSize: input.size ?? null }) + '\n'
}
