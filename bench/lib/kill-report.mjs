// The kill -9 table of `npm run bench:outage` (bench/outage-kill.mjs), in the outage block of
// bench/RESULTS.md.

import { KILL_CLIENTS, KILL_SERVICES } from '../outage-kill.mjs'

const n = (v) => (v === undefined ? '–' : v.toLocaleString('en-US'))
const sec = (ms) => (ms === undefined ? '–' : ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

/** Markdown for the kill scenarios in `results` (scenario -> client -> service -> summary). */
export function renderKill(results, scenarios, clients = KILL_CLIENTS) {
  const kills = scenarios.filter((s) => s.startsWith('kill-'))
  if (kills.length === 0) return ''
  const lines = [
    '**kill -9 at a random moment** (uniform in 2–6 s after the process is ready, the same moments for every client): a process',
    'tracks at the rate with explicit messageIds and is killed; with the spool, a second process (eventrail with the spool, same',
    'directory) then runs until `closeAndFlush()` resolves. Accepted = `track()` calls that returned; lost = accepted messageIds',
    'the service never received; duplicates = receipts beyond the first, "in flight" = of messageIds the service had received',
    'before the kill whose records were not yet acked. Service `up` answers at once, `slow` after 200 ms. Without the spool there',
    'is no second process.',
    '',
    '| rate | service | client | trials | accepted | lost (max in a trial) | lost % | duplicates (max) | of them in flight | waiting at the kill (in flight) | second process: replayed, slowest | files left |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const s of kills) {
    const rate = Number(s.slice('kill-'.length))
    for (const service of Object.keys(KILL_SERVICES)) {
      for (const c of clients) {
        const r = results[s]?.[c]
        if (r === undefined) continue
        const cell = r[service]
        const head = `| ${n(rate)}/s | ${service} | ${c}`
        if (r.error || cell === undefined) {
          lines.push(`${head} | ${r.error ?? 'not run'} | | | | | | | | |`)
          continue
        }
        const pct = cell.accepted > 0 ? ((cell.lost / cell.accepted) * 100).toFixed(1) : '–'
        const spool = cell.waitingAtKill !== undefined
        lines.push(
          [
            head,
            n(cell.trials),
            n(cell.accepted),
            `${n(cell.lost)} (${n(cell.lostMax)})`,
            `${pct} %`,
            `${n(cell.duplicates)} (${n(cell.duplicatesMax)})`,
            spool ? n(cell.duplicatesInFlight) : '–',
            spool ? `${n(cell.waitingAtKill)} (${n(cell.inFlightAtKill)})` : '–',
            spool ? `${n(cell.replayed)}, ${sec(cell.secondMsMax)}` : '–',
            spool ? n(cell.leftFilesMax) : '–',
          ].join(' | ') + ' |',
        )
      }
    }
  }
  return lines.join('\n')
}
