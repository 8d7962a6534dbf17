import type { SpoolReport } from './spool-report'

/** What `purge` would delete: the parts whose client is gone, or the dead-letter files. */
export interface PurgePlan {
  readonly parts: readonly string[]
  readonly files: readonly string[]
  readonly records: number
  readonly bytes: number
  /** Parts left alone, with why. */
  readonly kept: readonly string[]
}

/**
 * What `purge` deletes in the directory of `report`: with `rejected`, the dead-letter files; else
 * the parts whose client is gone (on this host: its pid is not running). The part of a client
 * that is alive, or of another host (whose clock this one cannot judge), or whose owner cannot be
 * read, stays: deleting under a running client would lose what it is sending.
 */
export function planPurge(report: SpoolReport, rejected: boolean): PurgePlan {
  if (rejected) {
    const files = report.rejected.flatMap((r) => r.files)
    return {
      parts: [],
      files,
      records: report.rejected.reduce((n, r) => n + r.kept, 0),
      bytes: report.rejected.reduce((n, r) => n + r.bytes, 0),
      kept: [],
    }
  }
  const gone = report.parts.filter((p) => p.owner?.state === 'gone')
  const kept = report.parts
    .filter((p) => p.owner?.state !== 'gone')
    .map((p) => `${p.name} (${p.owner === undefined ? 'its owner cannot be read' : p.owner.state === 'alive' ? 'its client is alive' : `its client is on ${p.owner.host}`})`)
  return {
    parts: gone.map((p) => p.name),
    files: [],
    records: gone.reduce((n, p) => n + p.waiting, 0),
    bytes: gone.reduce((n, p) => n + p.bytes, 0),
    kept,
  }
}

