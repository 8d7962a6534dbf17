import type { SpoolModuleType } from '../durability/spool-load'
import type { PartSurvey, SpoolFs } from '../durability/spool/index'

/** A tenant's dead letters, as `inspect` shows them. */
export interface RejectedSummary {
  /** The digest of the write key and host they were refused under (as in the parts' owner files). */
  readonly tenant: string
  readonly files: readonly string[]
  readonly bytes: number
  /** Dead letters kept. */
  readonly kept: number
  /** Dead letters the bound dropped (the oldest). */
  readonly dropped: number
  /** Lines that are not a dead letter. */
  readonly unreadable: number
  /** Files not read (a link, another user's, too large). */
  readonly skipped: readonly string[]
  /** Kept dead letters by status (`400`, `422` …; `none` without one). */
  readonly byStatus: Readonly<Record<string, number>>
}

/** What `eventrail spool inspect --json` prints. */
export interface SpoolReport {
  readonly dir: string
  readonly parts: readonly PartSurvey[]
  readonly rejected: readonly RejectedSummary[]
  readonly totals: { readonly parts: number; readonly waiting: number; readonly bytes: number; readonly torn: number; readonly rejected: number }
}

/**
 * Looks at the spool directory `dir` (read only) with the spool's own readers (`spool`, the
 * module a client loads). @throws UntrustedDirError, or a file-system error for a directory that is not there.
 */
export function buildReport(spool: SpoolModuleType, fs: SpoolFs, dir: string): SpoolReport {
  const parts = spool.surveySpool(fs, dir)
  const rejected = spool.readRejected(fs, dir).map((set): RejectedSummary => {
    const byStatus: Record<string, number> = {}
    for (const entry of set.entries) {
      const key = entry.status === null ? 'none' : String(entry.status)
      byStatus[key] = (byStatus[key] ?? 0) + 1
    }
    const { tenant, files, bytes, dropped, unreadable, skipped } = set
    return { tenant, files, bytes, kept: set.entries.length, dropped, unreadable, skipped, byStatus }
  })
  const sum = (key: 'waiting' | 'bytes' | 'torn'): number => parts.reduce((n, p) => n + p[key], 0)
  const totals = {
    parts: parts.length,
    waiting: sum('waiting'),
    bytes: sum('bytes'),
    torn: sum('torn'),
    rejected: rejected.reduce((n, r) => n + r.kept, 0),
  }
  return { dir, parts, rejected, totals }
}

/** Something `verify` found wrong: which file (relative to the directory), and what. */
export interface Damage {
  readonly file: string
  readonly what: string
}

/** Everything in the report that a client would not send as written: torn, cut off, not a message, not readable. */
export function damageOf(report: SpoolReport): Damage[] {
  const damage: Damage[] = []
  for (const part of report.parts) {
    if (part.problem !== undefined) damage.push({ file: part.name, what: part.problem })
    const last = part.segments[part.segments.length - 1]
    for (const s of part.segments) {
      if (s.problem !== undefined) damage.push({ file: s.file, what: s.problem })
      // A live client may be writing its newest segment's last record as it is read: not damage.
      if (s.cutOff && s === last && part.owner?.state === 'alive' && s.torn + s.invalid === 0 && s.problem === undefined) continue
      if (s.torn > 0) damage.push({ file: s.file, what: `${plural(s.torn, 'record')} failing ${s.torn === 1 ? 'its' : 'their'} checksum (torn: never sent)` })
      if (s.cutOff) damage.push({ file: s.file, what: `cut off after record ${s.records}: nothing after it is read` })
      if (s.invalid > 0) damage.push({ file: s.file, what: `${plural(s.invalid, 'record')} whole but not a message of ${s.invalid === 1 ? 'its' : 'their'} kind (never sent)` })
    }
  }
  for (const r of report.rejected) {
    for (const file of r.skipped) damage.push({ file, what: 'not read: a link, another user’s, or too large' })
    if (r.unreadable > 0) damage.push({ file: r.files.join(', '), what: `${plural(r.unreadable, 'line')} that ${r.unreadable === 1 ? 'is' : 'are'} not a dead letter` })
  }
  return damage
}

const count = (n: number): string => n.toLocaleString('en-US')
const plural = (n: number, noun: string): string => `${count(n)} ${noun}${n === 1 ? '' : 's'}`

function age(ms: number | undefined): string {
  if (ms === undefined) return 'no heartbeat'
  const s = Math.round(ms / 1000)
  return `heartbeat ${s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`} ago`
}

function ownerLine(part: PartSurvey): string {
  const o = part.owner
  if (o === undefined) return part.problem ?? 'no owner'
  const who = o.state === 'alive' ? 'client alive' : o.state === 'gone' ? 'client gone' : `client on ${o.host}`
  const where = o.state === 'another host' ? `by this host's clock` : 'this host'
  return `${who} (pid ${o.pid}, ${where}, ${age(o.heartbeatAgeMs)}), tenant ${o.tenant.slice(0, 12)}`
}

/** The text of `eventrail spool inspect`. */
export function renderInspect(report: SpoolReport): string {
  const t = report.totals
  const lines = [
    `Spool ${report.dir}: ${plural(t.parts, 'part')}, ${count(t.waiting)} waiting, ${count(t.bytes)} bytes, ${count(t.torn)} torn, ${plural(t.rejected, 'dead letter')}`,
  ]
  for (const part of report.parts) {
    lines.push('', `${part.name}  ${ownerLine(part)}`)
    if (part.owner !== undefined || part.segments.length > 0)
      lines.push(`  ${count(part.waiting)} waiting in ${plural(part.segments.length, 'segment')}, ${count(part.bytes)} bytes, ${count(part.torn)} torn`)
    for (const s of part.segments) {
      const state = s.problem ?? `${plural(s.records, 'record')}, ${count(s.acked)} acked, ${count(s.waiting)} waiting, ${count(s.torn)} torn${s.cutOff ? ', cut off' : ''}${s.invalid > 0 ? `, ${count(s.invalid)} not a message` : ''}`
      lines.push(`    ${s.file}  ${count(s.bytes)} bytes: ${state}`)
    }
  }
  for (const r of report.rejected) {
    const statuses = Object.entries(r.byStatus)
      .map(([status, n]) => `${status} ×${count(n)}`)
      .join(', ')
    lines.push(
      '',
      `Dead letters of tenant ${r.tenant.slice(0, 12)} (${r.files.join(', ') || 'no file read'}): ${count(r.kept)} kept${statuses === '' ? '' : ` (${statuses})`}, ${count(r.dropped)} dropped by the bound, ${count(r.bytes)} bytes`,
    )
  }
  if (t.waiting > 0) lines.push('', `"eventrail spool export ${report.dir}" writes the waiting records out for "eventrail import".`)
  return `${lines.join('\n')}\n`
}

/** The text of `eventrail spool verify`. */
export function renderVerify(report: SpoolReport, damage: readonly Damage[]): string {
  const records = report.parts.reduce((n, p) => n + p.segments.reduce((m, s) => m + s.records, 0), 0)
  const segments = report.parts.reduce((n, p) => n + p.segments.length, 0)
  if (damage.length === 0) return `${report.dir}: clean (${plural(records, 'record')} in ${plural(segments, 'segment')}, every checksum right)\n`
  const lines = damage.map((d) => `  ${d.file}: ${d.what}`)
  return `${report.dir}: damaged (${plural(damage.length, 'problem')} in ${plural(records, 'record')} of ${plural(segments, 'segment')})\n${lines.join('\n')}\n`
}
