// npm run bench:import [-- --quick]
//
// Historical import (issue 14): `eventrail import` against the bench's sink (bench/lib/sink.cjs),
// in the same run as the baseline's maximum-batching throughput (scenario 2b of bench/run.mjs):
//   1. throughput on a file of 200,000 "Order Completed" events (the bench's event, bench/lib/events.mjs)
//      compared with the baseline's events/s;
//   2. peak RSS while importing a 1 GB file (generated in a temp dir, deleted after), with the
//      sink answering at once and after 200 ms;
//   3. the loop a user writes today (analytics-node 6: track() each line, then flush()) on the
//      file of 1: time, peak RSS, messages lost.
// Full mode runs 1 five times, the baseline and the import taking turns, and compares the medians
// (peak RSS: the highest of the five; lost and duplicated: summed).
// --quick: 20,000 events once, a 50 MB file, for checking that the script works. Prints a markdown table.

import { fork, spawn } from 'node:child_process'
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { orderCompleted } from './lib/events.mjs'
import { startSink } from './lib/sink-process.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const quick = process.argv.includes('--quick')
const P = quick
  ? { events: 20_000, bigBytes: 50e6, legacyEvents: 5_000, rounds: 1 }
  : { events: 200_000, bigBytes: 1e9, legacyEvents: 200_000, rounds: 5 }

/** Writes `count` events (or `bytes` worth) as JSON lines; resolves with the line count. */
async function writeEvents(path, { count = Infinity, bytes = Infinity }) {
  const out = createWriteStream(path)
  let written = 0
  let i = 0
  for (; i < count && written < bytes; i++) {
    const line = JSON.stringify({ type: 'track', ...orderCompleted(i) }) + '\n'
    written += line.length
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve))
  }
  await new Promise((resolve) => out.end(resolve))
  return i
}

function runChild(mode, file, host, dir, extra = []) {
  const resultPath = join(dir, `result-${mode}-${Date.now()}.json`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, 'import-child.mjs'), mode, file, host, resultPath, ...extra], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.on('exit', (code) => {
      const result = JSON.parse(readFileSync(resultPath, 'utf8'))
      const events = stdout.split('\n').filter((l) => l.startsWith('{'))
      const summary = events.map((l) => JSON.parse(l)).find((e) => e.event === 'summary')
      resolve({ ...result, summary, code })
    })
  })
}

function baselineThroughput(host, events) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'worker.mjs'), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.on('message', (msg) => (msg.type === 'result' ? resolve(msg.result) : msg.type === 'error' && reject(new Error(msg.error))))
    child.send({ type: 'job', scenario: 'throughput', params: { clientName: 'baseline', host, events, flushAt: 1000 } })
  })
}

// The sink counts a request once it has read it: wait until its count stops moving.
async function settledStats(sink) {
  let last = -1
  for (let i = 0; i < 100; i++) {
    const s = await sink.send('stats')
    if (s.events === last) return s
    last = s.events
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
  return sink.send('stats')
}

/** The run with the median events/s (the lower middle one of an even count). */
function medianRun(runs) {
  const sorted = [...runs].sort((a, b) => a.eventsPerSec - b.eventsPerSec)
  const { eventsPerSec, wallMs } = sorted[Math.floor((sorted.length - 1) / 2)]
  return { eventsPerSec, wallMs }
}
const sum = (runs, key) => runs.reduce((total, r) => total + (r[key] ?? 0), 0)

const fmt = (n, digits = 0) =>
  n === undefined ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'eventrail-bench-import-'))
  const sink = startSink()
  const host = `http://127.0.0.1:${await sink.ready}`
  const rows = []
  try {
    const file = join(dir, 'events.jsonl')
    await writeEvents(file, { count: P.events })
    // The baseline and the import take turns, `rounds` times: on a shared 2-core machine one run of
    // each can differ by 10 % from the next; the medians are compared.
    const baseRuns = []
    const importRuns = []
    for (let round = 0; round < P.rounds; round++) {
      await sink.send('reset', { checkEvents: false })
      const base = await baselineThroughput(host, P.events)
      baseRuns.push({ ...base, lost: P.events - (await settledStats(sink)).unique })
      await sink.send('reset', { checkEvents: false })
      const run = await runChild('cli', file, host, dir)
      const s = await settledStats(sink)
      const perSec = (run.summary.sent * 1000) / run.summary.elapsedMs
      importRuns.push({
        eventsPerSec: perSec,
        wallMs: run.summary.elapsedMs,
        rssMb: run.maxRssMb,
        lost: P.events - s.unique,
        duplicates: s.duplicates,
      })
      console.error(
        `  round ${round + 1}: baseline ${fmt(base.eventsPerSec)} events/s, import ${fmt(perSec)} events/s (${fmt(perSec / base.eventsPerSec, 2)}x), peak RSS ${fmt(run.maxRssMb)} MB`,
      )
    }
    const base = medianRun(baseRuns)
    const run = medianRun(importRuns)
    const runs = P.rounds > 1 ? ` (median of ${P.rounds})` : ''
    rows.push({ what: `baseline, flushAt 1000 (scenario 2b)${runs}`, events: P.events, ...base, lost: sum(baseRuns, 'lost') })
    rows.push({
      what: `eventrail import${runs}`,
      events: P.events,
      ...run,
      ratio: run.eventsPerSec / base.eventsPerSec,
      rssMb: Math.max(...importRuns.map((r) => r.rssMb)),
      lost: sum(importRuns, 'lost'),
      duplicates: sum(importRuns, 'duplicates'),
    })

    const big = join(dir, 'big.jsonl')
    const bigLines = await writeEvents(big, { bytes: P.bigBytes })
    const bigMb = statSync(big).size / 1e6
    for (const latencyMs of [0, 200]) {
      await sink.send('reset', { checkEvents: false, latencyMs })
      const r = await runChild('cli', big, host, dir)
      const st = await settledStats(sink)
      rows.push({
        what: `eventrail import, ${fmt(bigMb)} MB file, sink answers ${latencyMs ? `after ${latencyMs} ms` : 'at once'}`,
        events: bigLines,
        eventsPerSec: (r.summary.sent * 1000) / r.summary.elapsedMs,
        wallMs: r.summary.elapsedMs,
        rssMb: r.maxRssMb,
        lost: bigLines - st.unique,
        duplicates: st.duplicates,
      })
      console.error(`  ${fmt(bigMb)} MB, latency ${latencyMs} ms: peak RSS ${fmt(r.maxRssMb)} MB`)
    }
    rmSync(big, { force: true })

    const legacyFile = P.legacyEvents === P.events ? file : join(dir, 'legacy.jsonl')
    if (legacyFile !== file) await writeEvents(legacyFile, { count: P.legacyEvents })
    await sink.send('reset', { checkEvents: false, latencyMs: 0 })
    const legacy = await runChild('legacy', legacyFile, host, dir)
    const ls = await settledStats(sink)
    rows.push({
      what: 'analytics-node 6: track() per line, then flush()',
      events: P.legacyEvents,
      eventsPerSec: (ls.unique * 1000) / legacy.wallMs,
      wallMs: legacy.wallMs,
      rssMb: legacy.maxRssMb,
      lost: P.legacyEvents - ls.unique,
      duplicates: ls.duplicates,
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await sink.send('close')
  }
  console.log(`\n### Historical import${quick ? ' (--quick)' : ''}\n`)
  console.log('| run | events | events/s | × baseline | time (s) | peak RSS (MB) | lost | duplicated |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const r of rows) {
    console.log(
      `| ${r.what} | ${fmt(r.events)} | ${fmt(r.eventsPerSec)} | ${r.ratio ? `${fmt(r.ratio, 2)}×` : '–'} | ${fmt(r.wallMs / 1000, 1)} | ${fmt(r.rssMb)} | ${fmt(r.lost)} | ${fmt(r.duplicates)} |`,
    )
  }
}

await main()
