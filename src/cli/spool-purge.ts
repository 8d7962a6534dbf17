import type { SpoolFs } from '../durability/spool/files'
import { readFile } from '../durability/spool/files'
import { SEGMENT_MAGIC } from '../durability/spool/frame'
import { REJECTED_NAME } from '../durability/spool/rejected'
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

/**
 * Deletes what `plan` names in `dir`; returns what could not be deleted. A part is first renamed
 * out of the clients' way (`purged-<name>`: a rename succeeds once, so a client taking the part
 * over at the same moment either has it whole or never sees it), then only the files the spool
 * writes are deleted in it (segments, ack files, owner files): anything else stays, and so does
 * the directory that holds it.
 */
export function purge(fs: SpoolFs, dir: string, plan: PurgePlan): string[] {
  const left: string[] = []
  for (const name of plan.files) {
    if (!REJECTED_NAME.test(name)) continue
    try {
      fs.unlinkSync(`${dir}/${name}`)
    } catch (err) {
      left.push(`${name} (${String((err as Error)?.message ?? err)})`)
    }
  }
  for (const name of plan.parts) {
    const aside = `${dir}/purged-${name}`
    try {
      fs.renameSync(`${dir}/${name}`, aside)
    } catch {
      left.push(`${name} (taken over or moved meanwhile: not deleted)`)
      continue
    }
    if (!removeSpoolFiles(fs, aside)) left.push(`purged-${name} (it holds files the spool did not write: they stay)`)
  }
  return left
}

// Deletes the spool's files under `dir` (parts it took over included) and then `dir` when empty; false when something stays.
function removeSpoolFiles(fs: SpoolFs, dir: string): boolean {
  let whole = true
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${d.name}`
    if (d.isDirectory() && d.name.startsWith('from-')) whole = removeSpoolFiles(fs, path) && whole
    else if (d.isFile() && isSpoolFile(fs, path, d.name)) fs.unlinkSync(path)
    else whole = false
  }
  // Empty by now (everything in it was deleted above).
  if (whole) fs.rmSync(dir, { recursive: true })
  return whole
}

function isSpoolFile(fs: SpoolFs, path: string, name: string): boolean {
  if (name === 'owner.json' || name === 'owner.json.new' || name.endsWith('.ack')) return true
  if (!name.endsWith('.log')) return false
  // A segment of this format; one of a newer format is not the spool's to delete.
  try {
    return readFile(fs, path, 0, SEGMENT_MAGIC.length).equals(SEGMENT_MAGIC)
  } catch {
    return false
  }
}
