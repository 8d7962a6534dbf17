// Scenario 7 of `npm run bench`: the disk spool's rows and target (bench/lib/spool-row.mjs).

import { SPOOL_ROWS } from './spool-row.mjs'

/** The spool's cost target: client CPU per event with it, over the same client without it. */
export const SPOOL_CPU_TARGET = 1.4

const num = (value, digits = 0) =>
  typeof value !== 'number' || Number.isNaN(value)
    ? '–'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const ratio = (value, base) => (typeof value === 'number' && typeof base === 'number' && base > 0 ? `${(value / base).toFixed(2)}×` : '–')

/** The section of scenario 7 (markdown lines), or [] when it did not run. */
export function renderSpoolSection(spool, P) {
  if (!spool) return []
  const base = spool.eventrail ?? {}
  const rows = SPOOL_ROWS.map((row) => {
    const r = spool[row]
    if (!r || r.error)
      return `| ${row} | error: ${String(r?.error ?? 'not run')
        .split('\n')[0]
        .slice(0, 80)} | | | | | | | | | | | |`
    const note = r.errors ? ` (${r.errors} of ${r.runs} runs failed)` : ''
    return `| ${row}${note} | ${num(r.sent)} | ${num(r.nsPerCall)} | ${ratio(r.nsPerCall, base.nsPerCall)} | ${num(r.cpuUsPerEvent, 2)} | ${ratio(r.cpuUsPerEvent, base.cpuUsPerEvent)} | ${num(r.cpuSystemUsPerEvent, 2)} | ${num(r.cpuMs)} | ${num(r.wallMs)} | ${num(r.eventsPerSec)} | ${num(r.requests)} | ${num(r.lost)} | ${num(r.duplicates)} |`
  })
  return [
    '',
    `### 7. The disk spool: scenario 1 (${num(P.calls)} calls, default options) for eventrail without and with \`spool: { dir }\`, interleaved`,
    '',
    'Ratios (×) are to eventrail without the spool in the same run. The spool directory is new for each run, on the local disk (ext4 here).',
    "*Of which system*: the kernel's share of the CPU per event (writes; with the spool also its `write`s, `fdatasync` every second and segment deletions).",
    '',
    '| client | calls | ns per track() | × | CPU per event until acknowledged (µs) | × | of which system (µs) | CPU total (ms) | wall (ms) | events/s | requests | lost | duplicated |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ]
}

/** Rows for the targets table: [label, measured, met]. */
export function spoolTargetRows(spool) {
  const off = spool?.eventrail
  const on = spool?.['eventrail + spool']
  if (!off || !on || off.error || on.error) return []
  const cpu = on.cpuUsPerEvent / off.cpuUsPerEvent
  const ns = on.nsPerCall / off.nsPerCall
  return [
    [
      `client CPU per event with the spool ≤ ${SPOOL_CPU_TARGET}× without (scenario 7)`,
      `${cpu.toFixed(2)}×`,
      cpu <= SPOOL_CPU_TARGET ? 'yes' : '**no**',
    ],
    ['ns per track() with the spool, × without (scenario 7; no target)', `${ns.toFixed(2)}×`, '–'],
  ]
}
