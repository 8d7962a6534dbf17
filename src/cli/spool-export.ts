import type { Writable } from 'node:stream'
import type { SpoolModuleType } from '../durability/spool-load'
import type { SpoolFs } from '../durability/spool/index'

/** What `export` wrote. */
export interface ExportCount {
  readonly records: number
  /** The tenants (write key and host digests) of what was written: more than one must not be imported with one key. */
  readonly tenants: ReadonlySet<string>
  /** Of the records, those of a client that is alive (or on another host): it may send them too. */
  readonly ofLiveClients: number
}

// Lines are written a segment at a time (at most 4 MiB), waiting for the reader when it is slower.
// A reader that went away (`| head`) ends the export: its stream closes, and no drain comes.
async function writeLines(out: Writable, lines: readonly string[]): Promise<void> {
  if (lines.length === 0 || out.destroyed) return
  if (out.write(`${lines.join('\n')}\n`)) return
  await new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of ['drain', 'close', 'error']) out.off(event, done)
      resolve()
    }
    for (const event of ['drain', 'close', 'error']) out.on(event, done)
  })
}

/**
 * Writes every record that waits in the spool `dir` to `out`, one message's JSON a line (what
 * `eventrail import` reads), in the order a client would send them; only those of `tenant` when
 * given; with `rejected`, the dead letters instead (`keepRejected`), oldest first. Read only:
 * nothing is taken over, acked or deleted.
 */
export async function exportRecords(
  spool: SpoolModuleType,
  fs: SpoolFs,
  dir: string,
  out: Writable,
  options: { readonly tenant: string | undefined; readonly rejected: boolean },
): Promise<ExportCount> {
  let records = 0
  let ofLiveClients = 0
  const tenants = new Set<string>()
  const { tenant } = options
  const runs = options.rejected
    ? spool
        .readRejected(fs, dir)
        .filter((set) => tenant === undefined || set.tenant === tenant)
        .map((set) => ({ tenant: set.tenant, texts: set.entries.map((entry) => JSON.stringify(entry.message)), isAlive: false }))
    : spool.waitingRecords(fs, dir, tenant)
  for (const run of runs) {
    await writeLines(out, run.texts)
    records += run.texts.length
    if (run.isAlive) ofLiveClients += run.texts.length
    if (run.texts.length > 0) tenants.add(run.tenant)
  }
  return { records, tenants, ofLiveClients }
}
