// npm run bench:latency [-- --quick] [-- --runs=N]
//
// Delivery against a service that answers late, or fails: eventrail, analytics-node@6 and
// @segment/analytics-node@3 in the same run, against the bench's sink in its own process.
// Each cell: a fresh client process sends `messages` messages of a mix (track-only, 1 alias in
// 100, or the six types in turn: 1 alias in 6) in one synchronous run with a callback each, then
// flushes; it reports the time until every callback has run (or how many had, at the time limit).
// The sink reports requests, the most requests it handled at once, and resent requests (retries).
// The faults row: 10,000 messages of the six types against a sink that fails a quarter of requests
// (500, 503, 429 with Retry-After, resets, hangs), default options but flushAt 20. Prints markdown.

import { fork } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClient, messageOf, typeOf } from './latency-clients.mjs'
import { startSink } from './lib/sink-process.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)

const only = args.find((a) => a.startsWith('--client='))?.split('=')[1]
const CLIENTS = ['eventrail', 'analytics-node@6', '@segment/analytics-node@3'].filter((name) => only === undefined || name === only)
const LATENCIES_MS = [0, 50, 200, 2000]
const MIXES = ['track-only', 'alias-1-in-100', 'alias-1-in-6']
const LIMIT_MS = 60_000
const faultLatencyMs = option('fault-latency', 0)

async function child({ name, host, mix, messages }) {
  const client = await createClient(name, { host, root })
  const calls = new Map()
  let outcomes = 0
  let failed = 0
  let extra = 0
  let done
  const allDone = new Promise((resolve) => (done = resolve))
  const t0 = performance.now()
  for (let i = 0; i < messages; i++) {
    const type = typeOf(mix, i)
    client.send(type, messageOf(type, i), (err) => {
      const n = (calls.get(i) ?? 0) + 1
      calls.set(i, n)
      if (n > 1) extra += 1
      else {
        outcomes += 1
        if (err) failed += 1
        if (outcomes === messages) done()
      }
    })
  }
  void client.flush()
  const timer = setTimeout(done, LIMIT_MS)
  await allDone
  clearTimeout(timer)
  const wallMs = performance.now() - t0
  // A second callback for a message would show up here: give late ones a moment.
  await new Promise((resolve) => setTimeout(resolve, 50))
  process.send({ wallMs, outcomes, failed, extra, retries: client.retries() }, () => process.exit(0))
}

function runChild(params) {
  return new Promise((resolve) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(params)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    })
    let result
    const timer = setTimeout(() => proc.kill('SIGKILL'), LIMIT_MS + 20_000)
    proc.on('message', (msg) => (result = msg))
    proc.on('exit', () => {
      clearTimeout(timer)
      resolve(result ?? { wallMs: NaN, outcomes: 0, failed: 0, extra: 0, crashed: true })
    })
  })
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function measure(sink, host, { name, latencyMs, faultRate, mix, messages, runs }) {
  const samples = []
  for (let run = 0; run < runs; run++) {
    await sink.send('reset', { latencyMs, faultRate })
    const result = await runChild({ name, host, mix, messages })
    // Hung requests of a faults run may still be open: the sink's counts are taken now.
    const stats = await sink.send('stats')
    samples.push({
      ...result,
      requests: stats.requests,
      peakInFlight: stats.peakInFlight,
      resent: stats.resentRequests,
      lost: messages - stats.unique,
    })
  }
  const pick = (key) => median(samples.map((s) => s[key]))
  return {
    name,
    latencyMs,
    faultRate,
    mix,
    messages,
    seconds: pick('wallMs') / 1000,
    outcomes: Math.min(...samples.map((s) => s.outcomes)),
    failed: pick('failed'),
    extra: Math.max(...samples.map((s) => s.extra)),
    requests: pick('requests'),
    peakInFlight: pick('peakInFlight'),
    resent: pick('resent'),
    lost: Math.max(...samples.map((s) => s.lost)),
    retries: pick('retries'),
  }
}

function table(rows, title) {
  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—')
  const time = (r) =>
    r.outcomes < r.messages
      ? `not done after ${LIMIT_MS / 1000} s: ${fmt(r.outcomes)} of ${fmt(r.messages)} outcomes`
      : `${fmt(r.seconds, 2)} s`
  return [
    `### ${title}`,
    '',
    '| latency | mix | client | time to every outcome | requests | peak in flight | resent requests (retries) | failed | lost at the sink | callbacks beyond one |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.faultRate > 0 ? `faults, ${r.latencyMs} ms` : `${r.latencyMs} ms`} | ${r.mix} | ${r.name} | ${time(r)} | ${fmt(r.requests)} | ${fmt(r.peakInFlight)} | ${fmt(r.resent)}${r.retries === undefined || r.retries === null ? '' : ` (${fmt(r.retries)})`} | ${fmt(r.failed)} | ${fmt(r.lost)} | ${fmt(r.extra)} |`,
    ),
    '',
  ].join('\n')
}

async function main() {
  const runs = option('runs', quick ? 1 : 3)
  const messages = option('messages', 2000)
  const sink = startSink()
  const host = `http://127.0.0.1:${await sink.ready}`
  console.error(`latency bench · ${messages} messages · median of ${runs} · node ${process.version}`)
  const latencyRows = []
  for (const latencyMs of args.includes('--faults-only') ? [] : quick ? [0, 200, 2000] : LATENCIES_MS) {
    for (const mix of MIXES) {
      for (const name of CLIENTS) {
        const row = await measure(sink, host, { name, latencyMs, faultRate: 0, mix, messages, runs })
        latencyRows.push(row)
        console.error(
          `  ${latencyMs} ms · ${mix} · ${name}: ${row.seconds.toFixed(2)} s, ${row.requests} requests, peak ${row.peakInFlight}`,
        )
      }
    }
  }
  const faultRows = []
  if (!args.includes('--no-faults')) {
    for (const name of CLIENTS) {
      // The sink keeps a setting a reset does not name: the latency is set back to this run's own.
      const row = await measure(sink, host, {
        name,
        latencyMs: faultLatencyMs,
        faultRate: 0.25,
        mix: 'alias-1-in-6',
        messages: 10_000,
        runs: 1,
      })
      faultRows.push(row)
      console.error(`  faults · ${name}: ${row.seconds.toFixed(2)} s, ${row.outcomes} outcomes, lost ${row.lost}, extra ${row.extra}`)
    }
  }
  await sink.send('close')
  console.log(table(latencyRows, `Latency: ${messages} messages, flushAt 20, median of ${runs}`))
  if (faultRows.length > 0)
    console.log(
      table(faultRows, `Faults: 10,000 messages (1 alias in 6), a quarter of requests fail, answers after ${faultLatencyMs} ms, one run`),
    )
}

if (process.argv[2] === '--child') await child(JSON.parse(process.argv[3]))
else await main()
