// npm run bench:in-flight [-- --runs=N] [-- --events=N]
//
// How eventrail's default maxInFlight was chosen: throughput and client CPU of a burst of
// events, for maxInFlight 1, 2, 4, 8 and 16, against the bench's sink (its own process) answering
// at once (loopback) and after 20 ms and 80 ms (a service across a network). Each cell is the
// median of `runs` fresh client processes. The built package is used (run `npm run build` first;
// the npm script does). Prints a markdown table.

import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { orderCompleted } from './lib/events.mjs'
import { startSink } from './lib/sink-process.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)

const IN_FLIGHT = [1, 2, 4, 8, 16]
const LATENCIES_MS = [0, 20, 80]
const CALLS_PER_YIELD = 100

// One client process: tracks `events` order events like a busy server, then flushes.
async function child({ host, maxInFlight, events }) {
  const { Analytics } = await import(join(here, '..', 'dist', 'index.js'))
  const analytics = new Analytics('bench-write-key', { host, maxInFlight, errorHandler: () => {} })
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let start = 0; start < events; start += CALLS_PER_YIELD) {
    for (let i = start; i < Math.min(events, start + CALLS_PER_YIELD); i++) analytics.track(orderCompleted(i))
    await new Promise((resolve) => setImmediate(resolve))
  }
  await analytics.closeAndFlush()
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const { sent, failed } = analytics.stats()
  process.send({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, sent, failed }, () => process.exit(0))
}

function runChild(params) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(params)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let result
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000)
    proc.on('message', (msg) => (result = msg))
    proc.on('exit', (code) => {
      clearTimeout(timer)
      if (result) resolve(result)
      else reject(new Error(`client process exited with ${code}`))
    })
  })
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function main() {
  const runs = option('runs', 3)
  const events = option('events', 100_000)
  const sink = startSink()
  const host = `http://127.0.0.1:${await sink.ready}`
  const rows = []
  console.error(`maxInFlight bench · ${events} events · median of ${runs} · node ${process.version}`)
  for (const latencyMs of LATENCIES_MS) {
    for (const maxInFlight of IN_FLIGHT) {
      const samples = []
      for (let run = 0; run < runs; run++) {
        await sink.send('reset', { latencyMs })
        const result = await runChild({ host, maxInFlight, events })
        const stats = await sink.send('stats')
        samples.push({ ...result, requests: stats.requests, peakSockets: stats.peakSockets, unique: stats.unique })
      }
      const row = {
        latencyMs,
        maxInFlight,
        eventsPerSecond: median(samples.map((s) => (events / s.wallMs) * 1000)),
        cpuUsPerEvent: median(samples.map((s) => (s.cpuMs * 1000) / events)),
        requests: median(samples.map((s) => s.requests)),
        peakSockets: median(samples.map((s) => s.peakSockets)),
        lost: Math.max(...samples.map((s) => events - s.unique)),
      }
      rows.push(row)
      console.error(`  latency ${latencyMs} ms · maxInFlight ${maxInFlight}: ${Math.round(row.eventsPerSecond)} events/s`)
    }
  }
  await sink.send('close')
  const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
  const lines = [
    '| answer latency (ms) | maxInFlight | events/s | CPU per event (µs) | requests | events/request | peak sockets | lost |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.latencyMs} | ${r.maxInFlight} | ${fmt(r.eventsPerSecond)} | ${fmt(r.cpuUsPerEvent, 2)} | ${fmt(r.requests)} | ${fmt(events / r.requests, 1)} | ${r.peakSockets} | ${r.lost} |`,
    ),
  ]
  console.log(lines.join('\n'))
}

if (process.argv[2] === '--child') await child(JSON.parse(process.argv[3]))
else await main()
