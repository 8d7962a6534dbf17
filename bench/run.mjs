// npm run bench [-- --quick] [-- --only=1,2] [-- --clients=baseline,eventrail] [-- --runs=N] [-- --profile]
//
// Benchmarks the built eventrail against a hand-written baseline and two popular clients, each
// scenario in a fresh child process per client and run, against a sink in a separate process.
// Prints markdown tables; a full run (no --quick, --only or --clients) also rewrites the tables
// in bench/RESULTS.md and the raw figures in bench/results.json.

import { fork, execFile, execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { CLIENT_MODULES, CLIENT_NAMES, importSpecifier } from './lib/clients.mjs'
import { startSink } from './lib/sink-process.mjs'
import { dependencyClosure, publishedBytes } from './lib/footprint.mjs'
import { summarizeProfile } from './lib/profile.mjs'
import { renderTables, renderProfile } from './lib/report.mjs'
import { takeSnapshot } from './lib/snapshot.mjs'
import { runSpoolRows } from './lib/spool-row.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const execFileAsync = promisify(execFile)

const args = process.argv.slice(2)
const flag = (name) => args.includes(`--${name}`)
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]

const quick = flag('quick')
const only = option('only')?.split(',').map(Number)
// --quick is for working on eventrail: the baseline and eventrail only, unless --clients says more.
const clients = option('clients')?.split(',') ?? (quick ? CLIENT_NAMES.slice(0, 2) : CLIENT_NAMES)
const isFullRun = !quick && !only && !option('clients') && !option('runs')

/** Counts of the full run; --quick uses the smaller ones and 1 run instead of 3. */
const P = quick
  ? { runs: 1, calls: 20_000, events: 20_000, memoryEvents: 20_000, imports: 3, tenants: 1_000, idleWaitMs: 6_000, timeoutMs: 60_000 }
  : { runs: 3, calls: 200_000, events: 200_000, memoryEvents: 100_000, imports: 10, tenants: 10_000, idleWaitMs: 6_000, timeoutMs: 180_000 }
if (option('runs')) P.runs = Number(option('runs'))

/**
 * The two peers cannot do the full counts in the time a bench run may take (analytics-node 6
 * re-stringifies its queue on every call: with flushAt 1000 it manages ~400 events/s here;
 * @segment/analytics-node delivers ~1,500 events/s). They run this share of the count; every
 * figure compared across clients is per event, per instance or per second, so the share
 * changes no ratio except in their favour (a smaller backlog, less garbage). Flushing 10,000
 * @segment/analytics-node instances took 127 s in a trial run (1,000: ~2.4 s), so scenario 6
 * gives it 1,000.
 */
const PEER_SHARE = {
  'analytics-node@6': { calls: 0.5, eventsMax: 0.05 },
  '@segment/analytics-node@3': { calls: 0.2, eventsMax: 0.2, memoryEvents: 0.25, tenants: 0.1 },
}
const countFor = (client, key, base = P[key === 'eventsMax' ? 'events' : key]) => Math.round(base * (PEER_SHARE[client]?.[key] ?? 1))

/** "Maximum batching": see bench/RESULTS.md. Every client gets the same flushAt. */
const MAX_FLUSH_AT = 1000

const wanted = (n) => !only || only.includes(n)

// ---------------------------------------------------------------- the sink process

// ---------------------------------------------------------------- one worker run

function runWorker(sink, scenario, params, { execArgv = [], onCheckpoint } = {}) {
  return new Promise((resolve) => {
    const child = fork(join(here, 'worker.mjs'), [], {
      execArgv: ['--expose-gc', ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      cwd: root,
    })
    let outcome
    const timer = setTimeout(() => {
      outcome ??= { error: `timed out after ${P.timeoutMs / 1000} s` }
      child.kill('SIGKILL')
    }, P.timeoutMs)
    child.on('message', async (msg) => {
      if (msg.type === 'checkpoint') {
        const data = await onCheckpoint?.(msg.name)
        child.send({ type: 'continue', data: data ?? {} })
      } else if (msg.type === 'result') outcome ??= { result: msg.result }
      else if (msg.type === 'error') outcome ??= { error: msg.error }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve(outcome ?? { error: `worker exited with code ${code}` })
    })
    child.send({ type: 'job', scenario, params })
  })
}

/** Runs a scenario for one client with a fresh sink count; adds what the sink saw. */
async function measure(sink, host, scenario, clientName, params, { sinkOptions = {}, pause = false, execArgv } = {}) {
  await sink.send('reset', { checkEvents: false, ...sinkOptions })
  if (pause) await sink.send('pause')
  const onCheckpoint = async (name) => {
    const stats = await sink.send('stats')
    if (name === 'queued') await sink.send('resume')
    return stats
  }
  const { result, error } = await runWorker(sink, scenario, { clientName, host, ...params }, { execArgv, onCheckpoint })
  if (pause) await sink.send('resume')
  // A client may answer before its last response is fully read by the sink's count: settle.
  await new Promise((r) => setTimeout(r, 50))
  const s = await sink.send('stats')
  if (error) {
    console.error(`  ${clientName} ${scenario}: ${error.split('\n')[0]}`)
    return { error }
  }
  const sent = result.sent ?? 0
  return {
    ...result,
    requests: s.requests,
    refusedRequests: s.refused,
    refusedOversize: s.refusedOversize,
    eventsPerRequest: s.accepted > 0 ? s.events / s.accepted : 0,
    peakSockets: s.peakSockets,
    connections: s.connections,
    largestRequestKb: s.largestRequest / 1024,
    delivered: s.unique,
    lost: Math.max(0, sent - s.unique),
    duplicates: s.duplicates,
    oversizeEventsSent: s.oversizeEventsReceived,
    byEvent: s.byEvent,
  }
}

// ---------------------------------------------------------------- statistics

function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Median of every numeric figure across runs (an errored run is left out and noted). */
function combine(runs) {
  const ok = runs.filter((r) => !r.error)
  const out = { runs: runs.length, errors: runs.length - ok.length }
  if (ok.length === 0) return { ...out, error: runs[0]?.error }
  for (const key of Object.keys(ok[0])) {
    if (typeof ok[0][key] === 'number') out[key] = median(ok.map((r) => r[key]))
    else out[key] = ok[0][key]
  }
  return out
}

/** Runs `fn(client)` P.runs times per client, interleaving clients so noise hits them alike. */
async function interleaved(label, fn) {
  return interleavedAmong(clients, label, fn)
}

async function interleavedAmong(among, label, fn) {
  const chosen = clients.filter((c) => among.includes(c))
  const runs = Object.fromEntries(chosen.map((c) => [c, []]))
  for (let r = 0; r < P.runs; r++) {
    for (const client of chosen) {
      const t0 = Date.now()
      runs[client].push(await fn(client))
      console.error(`  ${label} · ${client} · run ${r + 1}/${P.runs} · ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    }
  }
  return Object.fromEntries(chosen.map((c) => [c, combine(runs[c])]))
}

// ---------------------------------------------------------------- scenario 4 (no worker)

/**
 * The reference of the import() target: `import('node:http')` timed in-process in a fresh process,
 * taking turns with the clients. Not bench/lib/baseline.cjs imported from ESM: that includes the
 * CommonJS loader's start-up (~15 ms on Node 20) and hid an import 2.9× node:http's as ~1× (issue 31).
 */
const IMPORT_REFERENCE = 'node:http'

async function coldStart(host) {
  const measured = [IMPORT_REFERENCE, ...clients]
  const runs = Object.fromEntries(measured.map((c) => [c, { import: [], require: [] }]))
  const script = join(here, 'import-time.mjs')
  for (let r = 0; r < P.imports; r++) {
    for (const client of measured) {
      for (const mode of ['import', 'require']) {
        const reference = client === IMPORT_REFERENCE
        const specifier = reference ? client : mode === 'require' ? CLIENT_MODULES[client] : importSpecifier(client)
        const argv = [script, client, mode, specifier, ...(mode === 'import' && !reference ? [host] : [])]
        try {
          const { stdout } = await execFileAsync(process.execPath, argv, { cwd: root, timeout: 30_000 })
          runs[client][mode].push(JSON.parse(stdout.trim().split('\n').pop()))
        } catch (err) {
          runs[client][mode].push({ error: String(err.message ?? err) })
        }
      }
    }
  }
  console.error(`  4 cold start · ${P.imports} fresh processes per client and mode`)
  const out = {}
  for (const client of measured) {
    const imported = combine(runs[client].import)
    const required = combine(runs[client].require)
    if (client === IMPORT_REFERENCE) {
      out.reference = { name: client, importMs: imported.loadMs, requireMs: required.loadMs }
      continue
    }
    out[client] = {
      importMs: imported.loadMs,
      firstEventMs: imported.firstEventMs,
      requireMs: required.loadMs,
      ...(imported.error ? { error: imported.error } : {}),
      ...footprint(client),
    }
  }
  return out
}

function footprint(client) {
  switch (client) {
    case 'baseline':
      return { packages: 1, installedKb: statSync(join(here, 'lib/baseline.cjs')).size / 1024 }
    case 'eventrail': {
      const c = dependencyClosure(snapshotDir, publishedBytes(snapshotDir))
      return { packages: c.packages, installedKb: c.bytes / 1024 }
    }
    case 'analytics-node@6': {
      const c = dependencyClosure(join(root, 'node_modules/analytics-node'))
      return { packages: c.packages, installedKb: c.bytes / 1024 }
    }
    case '@segment/analytics-node@3': {
      const c = dependencyClosure(join(root, 'node_modules/@segment/analytics-node'))
      return { packages: c.packages, installedKb: c.bytes / 1024 }
    }
  }
  return {}
}

// ---------------------------------------------------------------- profiles

async function profile(sink, host) {
  const dir = join(here, 'profiles')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const out = []
  const cases = [
    ['1 · caller cost and 2a · throughput, default options', 'caller', { calls: P.calls }],
    [`2 · throughput, flushAt ${MAX_FLUSH_AT}`, 'throughput', { events: P.events, flushAt: MAX_FLUSH_AT }],
    ['6 · many tenants', 'tenants', { tenants: P.tenants, idleWaitMs: 0 }],
  ]
  for (const [label, scenario, params] of cases) {
    for (const client of ['eventrail', 'baseline']) {
      const before = new Set(readdirSync(dir))
      await measure(sink, host, scenario, client, params, { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200'] })
      const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'))
      if (file) out.push({ label, client, file: join('bench/profiles', file), summary: summarizeProfile(join(dir, file)) })
      console.error(`  profile · ${label} · ${client}`)
    }
  }
  return out
}

// ---------------------------------------------------------------- main

let snapshotDir

async function main() {
  snapshotDir = await takeSnapshot()
  const sink = startSink()
  const port = await sink.ready
  const host = `http://127.0.0.1:${port}`
  const started = new Date()
  console.error(`eventrail bench · ${quick ? 'quick' : 'full'} · ${P.runs} run(s) · node ${process.version} · ${cpus().length} cores`)
  const results = { meta: meta(started), params: P, maxFlushAt: MAX_FLUSH_AT, clients, scenarios: {} }
  try {
    if (flag('profile')) {
      const profiles = await profile(sink, host)
      console.log(renderProfile(profiles))
      return
    }
    const S = results.scenarios
    // Scenario 1's runs are also 2a's: the same calls with default options, timed to the last acknowledgement.
    if (wanted(1) || wanted(2)) {
      S.caller = await interleaved('1+2a caller cost, throughput default', (c) =>
        measure(sink, host, 'caller', c, { calls: countFor(c, 'calls') }),
      )
      S.throughputDefault = S.caller
    }
    if (wanted(2)) {
      S.throughputMax = await interleaved(`2 throughput flushAt ${MAX_FLUSH_AT}`, (c) =>
        measure(sink, host, 'throughput', c, { events: countFor(c, 'eventsMax'), flushAt: MAX_FLUSH_AT }),
      )
    }
    if (wanted(2)) {
      // 2c: batches that fill by size, the baseline of issue 23's shape (480 KB, 8 sockets); the
      // peers are left out (analytics-node 6 re-stringifies its queue on every call).
      S.throughputFill = await interleavedAmong(['baseline', 'eventrail'], '2c throughput, batches fill by size', (c) =>
        measure(sink, host, 'throughput', c, { events: P.events, flushAt: 100_000, shape: 'fill' }),
      )
    }
    if (wanted(3)) {
      S.memory = await interleaved('3 memory', (c) =>
        measure(sink, host, 'memory', c, { events: countFor(c, 'memoryEvents') }, { pause: true }),
      )
    }
    if (wanted(4)) S.coldStart = await coldStart(host)
    if (wanted(5))
      S.big = await interleaved('5 big payloads', (c) => measure(sink, host, 'big', c, {}, { sinkOptions: { checkEvents: true } }))
    if (wanted(6)) {
      S.tenants = await interleaved('6 tenants', (c) =>
        measure(sink, host, 'tenants', c, { tenants: countFor(c, 'tenants'), idleWaitMs: P.idleWaitMs }),
      )
    }
    if (wanted(7) && clients.includes('eventrail')) {
      // 7: scenario 1 for eventrail without and with the disk spool (bench/lib/spool-row.mjs).
      S.spool = await runSpoolRows({
        runs: P.runs,
        measure: (spoolDir) => measure(sink, host, 'caller', 'eventrail', { calls: P.calls, ...(spoolDir ? { spoolDir } : {}) }),
        combine,
        log: (line) => console.error(line),
      })
    }
    results.meta.durationS = (Date.now() - started.getTime()) / 1000
    const tables = renderTables(results)
    console.log(tables)
    if (isFullRun) {
      writeFileSync(join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n')
      updateResultsMd(tables)
      console.error('wrote bench/RESULTS.md and bench/results.json')
    }
  } finally {
    await sink.send('close').catch(() => {})
    sink.child.kill()
  }
}

/** The commit measured, and whether src/ differed from it (a build of uncommitted work). */
function revision() {
  try {
    const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const dirty = git('status', '--porcelain', '--', 'src', 'package.json', 'tsup.config.ts') !== ''
    return git('rev-parse', '--short', 'HEAD') + (dirty ? ' + uncommitted changes in src' : '')
  } catch {
    return 'unknown'
  }
}

function meta(started) {
  const cpu = cpus()
  return {
    revision: revision(),
    date: started.toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: `${cpu.length} × ${cpu[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    quick,
  }
}

const START = '<!-- results:start -->'
const END = '<!-- results:end -->'

function updateResultsMd(tables) {
  const path = join(here, 'RESULTS.md')
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    text = `# eventrail benchmark results\n\n${START}\n${END}\n`
  }
  const a = text.indexOf(START)
  const b = text.indexOf(END)
  if (a < 0 || b < 0) text += `\n${START}\n${END}\n`
  const i = text.indexOf(START)
  const j = text.indexOf(END)
  writeFileSync(path, text.slice(0, i + START.length) + '\n' + tables + '\n' + text.slice(j))
}

await main()
