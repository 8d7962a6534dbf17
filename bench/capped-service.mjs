// npm run bench:capped [-- --runs=N] [-- --messages=N] [-- --service-ms=N]
//
// The adaptive in-flight limit against a small service (issue 31): a server that handles 2
// requests at a time, each for `service-ms` (20 ms), and answers 503 at once to any request beyond
// those 2. A fresh client process (the built package, default options) sends `messages` (1,000)
// aliases, each with a callback, in one synchronous run, then flushes. Reported: attempts (every
// request the server saw), refused (503s), attempts per message, messages failed, messages
// accepted more than once, the limit when done, time. Target: attempts ≤ 2× messages, none
// failed, none sent twice. Each run is a fresh process; the median run (by attempts) is shown.

import { fork } from 'node:child_process'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const CAPACITY = 2

async function child({ host, messages }) {
  const { Analytics } = await import(join(here, '..', 'dist', 'index.js'))
  const analytics = new Analytics('bench-write-key', { host, errorHandler: () => {} })
  let failed = 0
  let outcomes = 0
  const t0 = performance.now()
  const limits = []
  const sampler = setInterval(() => limits.push(analytics.stats().inFlightLimit), 50)
  for (let i = 0; i < messages; i++) {
    analytics.alias({ userId: `user-${i}`, previousId: `anon-${i}`, messageId: `alias-${i}` }, (err) => {
      outcomes += 1
      if (err) failed += 1
    })
  }
  await analytics.closeAndFlush()
  clearInterval(sampler)
  const { inFlightLimit } = analytics.stats()
  process.send(
    { wallMs: performance.now() - t0, failed, outcomes, inFlightLimit, limitMin: Math.min(...limits), limitMax: Math.max(...limits) },
    () => process.exit(0),
  )
}

/** The service: `CAPACITY` requests at a time, each answered 200 after `serviceMs`; 503 beyond. */
function startService(serviceMs) {
  const stats = { attempts: 0, refused: 0, accepted: new Map(), peak: 0 }
  let active = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      stats.attempts += 1
      if (active >= CAPACITY) {
        stats.refused += 1
        res.writeHead(503).end('busy')
        return
      }
      active += 1
      stats.peak = Math.max(stats.peak, active)
      setTimeout(() => {
        active -= 1
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        for (const m of body.batch ?? [body]) stats.accepted.set(m.messageId, (stats.accepted.get(m.messageId) ?? 0) + 1)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      }, serviceMs)
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, stats, port: server.address().port })))
}

function runChild(params) {
  return new Promise((resolve) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(params)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let result
    proc.on('message', (msg) => (result = msg))
    proc.on('exit', () => resolve(result ?? { crashed: true }))
  })
}

async function main() {
  const runs = option('runs', 3)
  const messages = option('messages', 1000)
  const serviceMs = option('service-ms', 20)
  const rows = []
  for (let run = 0; run < runs; run++) {
    const { server, stats, port } = await startService(serviceMs)
    const result = await runChild({ host: `http://127.0.0.1:${port}`, messages })
    server.closeAllConnections()
    server.close()
    const twice = [...stats.accepted.values()].filter((n) => n > 1).length
    const row = { ...result, attempts: stats.attempts, refused: stats.refused, accepted: stats.accepted.size, twice, peak: stats.peak }
    console.error(
      `  run ${run + 1}: ${row.attempts} attempts, ${row.refused} refused, ${row.failed} failed, limit ${row.limitMin}–${row.limitMax}`,
    )
    rows.push(row)
  }
  const r = [...rows].sort((a, b) => a.attempts - b.attempts)[Math.floor(rows.length / 2)]
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
  console.log(
    `\n### A service that serves ${CAPACITY} requests at a time (${serviceMs} ms each), 503 beyond: ${fmt(messages)} aliases, median of ${runs}\n`,
  )
  console.log(
    '| attempts | refused (503) | attempts per message | failed | accepted | accepted twice | limit seen (every 50 ms) | limit at the end | time (s) |',
  )
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  console.log(
    `| ${fmt(r.attempts)} | ${fmt(r.refused)} | ${fmt(r.attempts / messages, 2)} | ${fmt(r.failed)} | ${fmt(r.accepted)} | ${fmt(r.twice)} | ${r.limitMin}–${r.limitMax} | ${r.inFlightLimit} | ${fmt(r.wallMs / 1000, 1)} |`,
  )
}

if (args[0] === '--child') await child(JSON.parse(args[1]))
else await main()
