// npm run bench:spool [-- --quick] [-- --runs=N] [-- --messages=N] [-- --profile]
//
// Replay after a restart: how fast a new process sends what a killed one left in its spool.
// Each run, in fresh processes:
//
// 1. a filler (bench/lib/spool-tracker.mjs, mode 'fill'): eventrail with the spool tracks 100,000
//    of the bench's ~500-byte order events (explicit messageIds, yielding every 100 calls) against
//    a service that is down (its fetch fails as a refused connection; the same key and host as the
//    replayer's, since a spool sends its records only with those), then SIGKILLs itself;
// 2. the bench reads the directory: every record must be there, none acked;
// 3. a replayer (bench/lib/spool-replayer.mjs): imports the build, then constructs a client with
//    the spool on that directory against the bench's sink (bench/lib/sink.cjs, its own process,
//    answering 200 at once) and calls closeAndFlush() at once.
//
// Figures: messages/s = messages / (construction to the last message received by the sink: the
// two processes' clocks are the same system clock); the time from construction to the first
// request reaching the sink; the construction alone (it takes over the dead process's part
// synchronously); when closeAndFlush() resolved and how many messages the sink had then (all of
// them, if it waits as it should: the replayer stays alive until the sink has all, so that a
// closeAndFlush() that resolves early is seen, not counted as loss); the replayer's CPU per
// message to the end; lost and duplicated as the sink counts them; files left once the replayer
// exits. Median of 5 runs (--quick: 1). --profile: one run with the replayer under --cpu-prof.
//
// Results: bench/spool-results.json and the block between the spool markers of bench/RESULTS.md
// (full runs only).

import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { forkWith } from './lib/fork-with.mjs'
import { summarizeProfile } from './lib/profile.mjs'
import { startSink } from './lib/sink-process.mjs'
import { diskUse, readSpool } from './lib/spool-dir.mjs'
import { renderReplay, writeReplayResults } from './lib/replay-report.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const args = process.argv.slice(2)
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]
const quick = args.includes('--quick')
const profile = args.includes('--profile')
const messages = Number(option('messages') ?? 100_000)
const runs = profile ? 1 : Number(option('runs') ?? (quick ? 1 : 5))
const isFullRun = !quick && !profile && option('runs') === undefined && option('messages') === undefined
const env = { SPOOL_TRACKER_ROOT: root }
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))


async function oneRun(sink, host, profileDir) {
  const work = mkdtempSync(join(tmpdir(), 'eventrail-replay-'))
  const spoolDir = join(work, 'spool')
  try {
    const t0 = performance.now()
    const filler = forkWith(join(here, 'lib', 'spool-tracker.mjs'), {
      ...env,
      SPOOL_TRACKER: JSON.stringify({ mode: 'fill', host, count: messages, spoolDir }),
    })
    await filler.next('filled')
    const { signal } = await filler.exited
    const fillMs = performance.now() - t0
    const before = readSpool(spoolDir)
    const disk = diskUse(spoolDir)
    if (before.waiting.length !== messages)
      throw new Error(`the killed filler left ${before.waiting.length} of ${messages} records waiting`)
    await sink.send('reset', { checkEvents: false })
    const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=200'] : []
    const replayer = forkWith(
      join(here, 'lib', 'spool-replayer.mjs'),
      { ...env, SPOOL_REPLAYER: JSON.stringify({ host, spoolDir, stay: true }) },
      execArgv,
    )
    const r = await replayer.next('replayed')
    const atResolve = await sink.send('stats')
    // closeAndFlush() should have waited for every message; if it did not, the process stays until
    // the sink has them all (at most 30 s), so that the time to the last delivery is measured.
    let s = atResolve
    for (const t1 = Date.now(); s.unique < messages && Date.now() - t1 < 30_000; s = await sink.send('stats')) await sleep(20)
    await sleep(50)
    s = await sink.send('stats')
    const exited = replayer.exited
    replayer.child.send({ type: 'exit' })
    const after = await replayer.next('after')
    await exited
    const lastMs = s.lastRequestAt - r.startedAt
    return {
      messages,
      fillMs,
      fillSignal: signal,
      segments: disk.files,
      spoolMb: disk.bytes / 2 ** 20,
      // Throughput to the last message received (the sink's clock), whether or not closeAndFlush() waited for it.
      messagesPerSec: s.unique === messages ? messages / (lastMs / 1000) : undefined,
      allDeliveredMs: s.unique === messages ? lastMs : undefined,
      closeAndFlushMs: r.ms,
      deliveredAtResolve: atResolve.unique,
      queuedAtResolve: r.queued,
      inFlightAtResolve: r.inFlight,
      constructMs: r.constructMs,
      firstRequestMs: s.firstRequestAt === undefined ? undefined : s.firstRequestAt - r.startedAt,
      firstFlushMs: r.firstFlushMs,
      cpuMs: after.cpuMs,
      cpuUsPerMessage: (after.cpuMs * 1000) / messages,
      requests: s.requests,
      delivered: s.unique,
      lost: messages - s.unique,
      duplicates: s.duplicates,
      replayEvent: r.replayEvent?.count,
      waiting: r.waiting,
      errors: r.errors,
      leftFiles: diskUse(spoolDir).files,
      leftSegments: diskUse(spoolDir).segments,
    }
  } finally {
    if (process.env.SPOOL_BENCH_KEEP) console.error(`kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
}

function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

async function main() {
  const sink = startSink()
  const host = `http://127.0.0.1:${await sink.ready}`
  const started = new Date()
  const profileDir = profile ? join(here, 'profiles') : undefined
  if (profileDir) mkdirSync(profileDir, { recursive: true })
  const before = new Set(profileDir ? readdirSync(profileDir) : [])
  console.error(
    `eventrail bench:spool · ${quick ? 'quick' : 'full'} · ${runs} run(s) of ${messages.toLocaleString('en-US')} messages · node ${process.version} · ${cpus().length} cores`,
  )
  const all = []
  try {
    for (let i = 0; i < runs; i++) {
      const r = await oneRun(sink, host, profileDir)
      all.push(r)
      console.error(
        `  run ${i + 1}/${runs}: ${Math.round(r.messagesPerSec ?? 0).toLocaleString('en-US')} messages/s, first request after ${r.firstRequestMs?.toFixed(1)} ms, closeAndFlush() after ${Math.round(r.closeAndFlushMs)} ms with ${r.deliveredAtResolve} delivered, lost ${r.lost}, duplicates ${r.duplicates}`,
      )
    }
  } finally {
    await sink.send('close').catch(() => {})
    sink.child.kill()
  }
  const summary = {}
  for (const key of Object.keys(all[0])) summary[key] = typeof all[0][key] === 'number' ? median(all.map((r) => r[key])) : all[0][key]
  summary.lost = Math.max(...all.map((r) => r.lost))
  summary.duplicates = Math.max(...all.map((r) => r.duplicates))
  summary.minMessagesPerSec = Math.min(...all.map((r) => r.messagesPerSec ?? 0))
  summary.maxMessagesPerSec = Math.max(...all.map((r) => r.messagesPerSec ?? 0))
  // closeAndFlush() must resolve only once every message has its outcome.
  summary.deliveredAtResolve = Math.min(...all.map((r) => r.deliveredAtResolve))
  summary.heldAtResolve = Math.max(...all.map((r) => r.queuedAtResolve + r.inFlightAtResolve))
  summary.earlyResolves = all.filter((r) => r.queuedAtResolve + r.inFlightAtResolve > 0).length
  summary.leftFiles = Math.max(...all.map((r) => r.leftFiles))
  summary.leftSegments = Math.max(...all.map((r) => r.leftSegments))
  const results = { date: started.toISOString(), node: process.version, cpus: cpus().length, quick, runs: all.length, summary, all }
  const markdown = renderReplay(results)
  console.log(markdown)
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'))
    if (file) printProfile(join(profileDir, file))
  }
  if (isFullRun) {
    writeFileSync(join(here, 'spool-results.json'), JSON.stringify(results, null, 2) + '\n')
    writeReplayResults(join(here, 'RESULTS.md'), markdown)
    console.error('wrote bench/RESULTS.md and bench/spool-results.json')
  }
}

function printProfile(path) {
  const s = summarizeProfile(path)
  console.log(`\nCPU profile of the replayer (${Math.round(s.totalMs)} ms busy): ${path}\n`)
  const groups = Object.entries(s.groups).sort((a, b) => b[1] - a[1])
  console.log(`Self time by origin: ${groups.map(([g, p]) => `${g} ${p.toFixed(1)} %`).join(', ')}\n`)
  console.log('| function (self time) | self % | total % |\n|---|---:|---:|')
  for (const f of s.functions.slice(0, 25)) console.log(`| ${f.key} | ${f.selfPct.toFixed(1)} | ${f.totalPct.toFixed(1)} |`)
}

await main()
