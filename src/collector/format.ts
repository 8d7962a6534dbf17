import { safeText } from './terminal-text'
import type { MessageRecord } from './types'

/** The columns of a message record, as text. */
export interface RecordSummary {
  readonly id: string
  readonly type: string
  /** `userId`, or `anonymousId (anonymous)`. */
  readonly identity: string
  /** Event name (track), name (page, screen), group id (group), `previousId → userId` (alias), trait names (identify). */
  readonly detail: string
  /** `accepted`, or `dropped: <reason>`. */
  readonly verdict: string
  /** Destination names, `historical` when the message is, `—` for a dropped message. */
  readonly destinations: string
}

const COLUMNS: ReadonlyArray<readonly [keyof RecordSummary, string]> = [
  ['id', '#'],
  ['type', 'type'],
  ['identity', 'identity'],
  ['detail', 'event / name'],
  ['destinations', 'destinations'],
  ['verdict', 'verdict'],
]

/** The text of each column of a record, as the debugger page shows them. */
export function summarizeRecord(record: MessageRecord): RecordSummary {
  const m = record.message
  return {
    id: String(record.id),
    type: record.type ?? '(none)',
    identity: identityOf(m),
    detail: detailOf(record.type, m),
    verdict: record.verdict === 'accepted' ? 'accepted' : `dropped: ${record.reason ?? ''}`,
    destinations: destinationsOf(record),
  }
}

/**
 * A plain-text table of message records, one line each, with a header: for terminals, logs and
 * test failure messages.
 * @example
 * ```ts
 * process.stdout.write(formatRecords(collector.messages))
 * ```
 */
export function formatRecords(records: readonly MessageRecord[]): string {
  // For a terminal: no control character from a request is written as is.
  const cells = [COLUMNS.map(([, title]) => title), ...records.map((r) => COLUMNS.map(([key]) => safeText(summarizeRecord(r)[key])))]
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => (i === COLUMNS.length - 1 ? 0 : row[i].length))))
  const line = (row: string[]): string =>
    row
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  const rule = widths.map((w, i) => '-'.repeat(i === COLUMNS.length - 1 ? 12 : w)).join('  ')
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n') + '\n'
}

function identityOf(m: Readonly<Record<string, unknown>>): string {
  if (typeof m.userId === 'string' && m.userId !== '') return m.userId
  if (typeof m.anonymousId === 'string' && m.anonymousId !== '') return `${m.anonymousId} (anonymous)`
  return '—'
}

function detailOf(type: string | null, m: Readonly<Record<string, unknown>>): string {
  const text = (value: unknown): string => (typeof value === 'string' && value !== '' ? value : '—')
  if (type === 'track') return text(m.event)
  if (type === 'page' || type === 'screen') return text(m.name)
  if (type === 'group') return text(m.groupId)
  if (type === 'alias') return `${text(m.previousId)} → ${text(m.userId)}`
  if (type === 'identify' && typeof m.traits === 'object' && m.traits !== null) return Object.keys(m.traits).join(', ') || '—'
  return '—'
}

function destinationsOf(record: MessageRecord): string {
  if (record.verdict !== 'accepted') return '—'
  const names = record.destinations?.length ? record.destinations.join(', ') : 'none'
  return record.historical ? `${names} (historical)` : names
}
