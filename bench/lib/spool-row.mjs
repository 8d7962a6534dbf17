// Scenario 7 of `npm run bench` (bench/run.mjs): the disk spool's cost. eventrail runs scenario 1
// (caller cost, default options) without and with `spool: { dir }`, interleaved run by run in
// fresh worker processes, so the ratio is of the same run and machine state. Each spool run gets
// a new directory under the system's temporary directory (the same disk as the repository here),
// removed after the run.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The rows of scenario 7, in table order. */
export const SPOOL_ROWS = ['eventrail', 'eventrail + spool']

/**
 * Runs `measure(spoolDir | undefined)` `runs` times for each row, interleaved; `combine` takes
 * the medians. Resolves with { eventrail, 'eventrail + spool' }.
 */
export async function runSpoolRows({ runs, measure, combine, log }) {
  const results = Object.fromEntries(SPOOL_ROWS.map((row) => [row, []]))
  for (let r = 0; r < runs; r++) {
    for (const row of SPOOL_ROWS) {
      const dir = row === 'eventrail' ? undefined : mkdtempSync(join(tmpdir(), 'eventrail-bench-spool-'))
      const t0 = Date.now()
      try {
        results[row].push(await measure(dir === undefined ? undefined : join(dir, 'spool')))
      } finally {
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
      }
      log(`  7 spool · ${row} · run ${r + 1}/${runs} · ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    }
  }
  return Object.fromEntries(SPOOL_ROWS.map((row) => [row, combine(results[row])]))
}
