// The table of `npm run bench:spool` (bench/spool.mjs) and its block in bench/RESULTS.md.

import { readFileSync, writeFileSync } from 'node:fs'

const START = '<!-- spool:start -->'
const END = '<!-- spool:end -->'
const TARGET_PER_SEC = 100_000

const n = (v, digits = 0) =>
  v === undefined || Number.isNaN(v) ? '–' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** Markdown for a bench:spool run. */
export function renderReplay({ date, node, cpus, runs, summary: s }) {
  const what = runs === 1 ? '1 run' : `median of ${runs} runs (slowest–fastest in brackets)`
  const range = runs > 1 ? ` (${n(s.minMessagesPerSec)}–${n(s.maxMessagesPerSec)})` : ''
  const met = s.messagesPerSec >= TARGET_PER_SEC && s.lost === 0
  const early =
    s.earlyResolves > 0
      ? `**\`closeAndFlush()\` resolved before every message had its outcome in ${s.earlyResolves} of ${runs} runs**: the client still held up to ${n(s.heldAtResolve)} messages (queued or in requests whose answer it had not read), and the sink had ${n(s.deliveredAtResolve)} of ${n(s.messages)} in the worst run. A process that exits when it resolves leaves those records on disk: the next process sends the ones never sent, and again the ones sent but not acked (duplicates with the same messageId). The replayer here stays until the sink has every message, so that the time to the last delivery is measured.`
      : `\`closeAndFlush()\` resolved once every message had its outcome, in every run.`
  return [
    `Run of ${date.slice(0, 16).replace('T', ' ')} UTC · Node ${node} · ${cpus} cores · ${what}, each in fresh processes`,
    '',
    `**Replay after a restart**: ${n(s.messages)} messages (${n(s.spoolMb, 1)} MB in ${n(s.segments)} files) left in the spool by a process`,
    'killed while the service was down; a new process constructs a client with the spool on that directory against a sink that',
    'answers 200 at once, and calls `closeAndFlush()` at once. Times are from the construction; messages/s to the last message',
    'the sink received.',
    '',
    '| messages | messages/s | construction (ms) | first request (ms) | first delivery acknowledged (ms) | all delivered (ms) | `closeAndFlush()` resolved (ms) | at the sink then, held by the client then | CPU per message (µs) | requests | lost | duplicated | files left (segments) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${n(s.messages)} | ${n(s.messagesPerSec)}${range} | ${n(s.constructMs, 1)} | ${n(s.firstRequestMs, 1)} | ${n(s.firstFlushMs, 1)} | ${n(s.allDeliveredMs)} | ${n(s.closeAndFlushMs)} | ${n(s.deliveredAtResolve)}, ${n(s.heldAtResolve)} | ${n(s.cpuUsPerMessage, 2)} | ${n(s.requests)} | ${n(s.lost)} | ${n(s.duplicates)} | ${n(s.leftFiles)} (${n(s.leftSegments)}) |`,
    '',
    early,
    '',
    `Target: replay at ≥ ${n(TARGET_PER_SEC)} messages/s into a service that answers at once, nothing lost: ${n(s.messagesPerSec)}/s, ${n(s.lost)} lost: ${met ? 'met' : '**not met**'}.`,
  ].join('\n')
}

/** Replaces the spool block of RESULTS.md (appended when missing). */
export function writeReplayResults(file, markdown) {
  const text = readFileSync(file, 'utf8')
  const block = `${START}\n${markdown}\n${END}`
  const i = text.indexOf(START)
  const j = text.indexOf(END)
  writeFileSync(file, i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + END.length) : `${text.trimEnd()}\n\n${block}\n`)
}
