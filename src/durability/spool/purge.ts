import { readFile, type SpoolFs } from './files'
import { SEGMENT_MAGIC } from './frame'
import { REJECTED_NAME } from './rejected'

/** What `eventrail spool purge` deletes: parts of `root` (their names) and dead-letter files. */
export interface PurgeTargets {
  readonly parts: readonly string[]
  readonly files: readonly string[]
}

/**
 * Deletes the parts and dead-letter files of `dir` that `plan` names (`eventrail spool purge`,
 * which chose them: parts whose client is gone); returns what could not be deleted. A part is first renamed
 * out of the clients' way (`purged-<name>`: a rename succeeds once, so a client taking the part
 * over at the same moment either has it whole or never sees it), then only the files the spool
 * writes are deleted in it (segments, ack files, owner files): anything else stays, and so does
 * the directory that holds it.
 */
export function purge(fs: SpoolFs, dir: string, plan: PurgeTargets): string[] {
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
