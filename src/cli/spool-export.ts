import type { Writable } from 'node:stream'
import type { SpoolFs } from '../durability/spool/files'
import { isTrusted, readOwner, segmentsOf, verifyRoot } from '../durability/spool/parts'
import { readRejected } from '../durability/spool/rejected'
import { surveySegment } from '../durability/spool/survey'

/** What `export` wrote. */
export interface ExportCount {
  readonly records: number
  /** Parts (or dead-letter files) they came from. */
  readonly sources: number
  /** The tenants (write key and host digests) of what was written: more than one must not be imported with one key. */
  readonly tenants: ReadonlySet<string>
}

// Lines are written a segment at a time (at most 4 MiB), waiting for the reader when it is slower.
async function writeLines(out: Writable, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return
  if (!out.write(`${lines.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', resolve))
}

/**
 * Writes every record that waits in the spool `dir` to `out`, one message's JSON a line (what
 * `eventrail import` reads), in the order a client would send them; only those of `tenant` when
 * given. Read only: nothing is taken over, acked or deleted.
 */
export async function exportWaiting(fs: SpoolFs, dir: string, out: Writable, tenant: string | undefined): Promise<ExportCount> {
  verifyRoot(fs, dir)
  const names = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith('part-'))
    .map((d) => d.name)
    .sort()
  let records = 0
  let sources = 0
  const tenants = new Set<string>()
  for (const name of names) {
    const path = `${dir}/${name}`
    if (!isTrusted(fs, path)) continue
    // As a client: a part whose owner cannot be read says whose it is to nobody, and is not sent.
    const owner = readOwner(fs, path)
    if (owner === undefined || (tenant !== undefined && owner.tenant !== tenant)) continue
    let found = 0
    for (const file of segmentsOf(fs, path)) {
      const lines: string[] = []
      surveySegment(fs, file, dir, (record) => lines.push(record.text))
      await writeLines(out, lines)
      found += lines.length
    }
    records += found
    if (found > 0) {
      sources += 1
      tenants.add(owner.tenant)
    }
  }
  return { records, sources, tenants }
}

/** Writes the dead letters kept in `dir` (`keepRejected`) to `out`, one message a line, oldest first; only those of `tenant` when given. */
export async function exportRejected(fs: SpoolFs, dir: string, out: Writable, tenant: string | undefined): Promise<ExportCount> {
  verifyRoot(fs, dir)
  let records = 0
  let sources = 0
  const tenants = new Set<string>()
  for (const set of readRejected(fs, dir)) {
    if (tenant !== undefined && set.tenant !== tenant) continue
    await writeLines(
      out,
      set.entries.map((entry) => JSON.stringify(entry.message)),
    )
    records += set.entries.length
    if (set.entries.length > 0) {
      sources += set.files.length
      tenants.add(set.tenant)
    }
  }
  return { records, sources, tenants }
}
