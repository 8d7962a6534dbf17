// The kill -9 scenarios of `npm run bench:outage` (kill-20, kill-2000), run in the cell's child
// process for one client (bench/outage.mjs). Each trial:
//
// 1. a service on 127.0.0.1 (bench/lib/kill-sink.mjs): `up` answers 200 at once, `slow` after
//    200 ms; it remembers every messageId it accepted and in which phase;
// 2. a tracker process (bench/lib/spool-tracker.mjs) tracks at the rate with explicit messageIds,
//    saving after each track() call how many returned ("accepted");
// 3. at a random moment, uniform in 2–6 s after it is ready (seeded: trial t of a cell is killed at
//    the same moment for every client), the tracker gets SIGKILL;
// 4. with the spool, the bench reads the directory: the messageIds still without an outcome, and
//    of those the ones the service had already received ("in flight": sent, not yet acked); then a
//    second process (bench/lib/spool-replayer.mjs: eventrail with the spool on the same directory)
//    runs until closeAndFlush() resolves;
// 5. lost = accepted messageIds the service never received; duplicates = receipts beyond the first
//    of a messageId, and whether that messageId was in flight at the kill.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { forkWith } from './lib/fork-with.mjs'
import { startKillSink } from './lib/kill-sink.mjs'
import { diskUse, readSpool } from './lib/spool-dir.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The clients of the kill scenarios: eventrail with the spool, then every client without one. */
export const KILL_CLIENTS = ['eventrail + spool', 'eventrail', 'analytics-node@6', '@segment/analytics-node@3']
export const KILL_SERVICES = { up: 0, slow: 200 }
const KILL_FROM_MS = 2_000
const KILL_SPAN_MS = 4_000

/** The kill moment of trial `t` of a cell: the same for every client (mulberry32 of the cell and trial). */
export function killMoment(rate, service, t) {
  let a = (Math.imul(rate, 0x9e3779b1) ^ Math.imul(t + 1, 0x85ebca6b) ^ (service === 'slow' ? 0xc2b2ae35 : 0)) >>> 0
  a = (a + 0x6d2b79f5) | 0
  let x = Math.imul(a ^ (a >>> 15), 1 | a)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  const uniform = ((x ^ (x >>> 14)) >>> 0) / 4294967296
  return KILL_FROM_MS + uniform * KILL_SPAN_MS
}

/** Runs every trial of one client in a kill scenario; resolves with a cell per service. */
export async function runKill(clientName, scenario, { root, quick, trials = quick ? 2 : 5 }) {
  const rate = Number(scenario.slice('kill-'.length))
  const out = {}
  for (const [service, latencyMs] of Object.entries(KILL_SERVICES)) {
    const runs = []
    for (let t = 0; t < trials; t++)
      runs.push(await trial(clientName, { root, rate, latencyMs, killAfterMs: killMoment(rate, service, t) }))
    out[service] = summarize(runs)
  }
  return out
}

async function trial(clientName, { root, rate, latencyMs, killAfterMs }) {
  const spool = clientName === 'eventrail + spool'
  const client = spool ? 'eventrail' : clientName
  const work = mkdtempSync(join(tmpdir(), 'eventrail-kill-'))
  const spoolDir = spool ? join(work, 'spool') : undefined
  const counterFile = join(work, 'accepted')
  const sink = await startKillSink({ latencyMs })
  try {
    const job = { mode: 'rate', client, host: sink.url, rate, spoolDir, counterFile, maxMs: 60_000 }
    const tracker = forkWith(join(here, 'lib', 'spool-tracker.mjs'), { SPOOL_TRACKER: JSON.stringify(job), SPOOL_TRACKER_ROOT: root })
    await tracker.next('ready')
    await sleep(killAfterMs)
    tracker.child.kill('SIGKILL')
    await tracker.exited
    const accepted = readFileSync(counterFile).readUInt32LE(0)
    // Requests whose body had reached the service's socket are still read: let them land.
    await sleep(latencyMs + 300)
    let atKill
    let second
    if (spool) {
      const left = readSpool(spoolDir)
      const inFlight = new Set(left.waiting.filter((id) => sink.received.get(id)?.first > 0))
      atKill = { waiting: left.waiting.length, inFlight, torn: left.torn }
      sink.state.phase = 'second'
      const replayer = forkWith(join(here, 'lib', 'spool-replayer.mjs'), {
        SPOOL_REPLAYER: JSON.stringify({ host: sink.url, spoolDir }),
        SPOOL_TRACKER_ROOT: root,
      })
      second = await replayer.next('replayed')
      await replayer.exited
      await sleep(100)
      second.leftOnDisk = diskUse(spoolDir)
    }
    return count({ sink, accepted, atKill, second, killAfterMs })
  } finally {
    await sink.close()
    rmSync(work, { recursive: true, force: true })
  }
}

function count({ sink, accepted, atKill, second, killAfterMs }) {
  let lost = 0
  let duplicates = 0
  let duplicatesInFlight = 0
  let extra = 0
  for (let i = 0; i < accepted; i++) if (!sink.received.has(`k${i}`)) lost += 1
  for (const [id, seen] of sink.received) {
    const times = seen.first + seen.second
    if (times > 1) {
      duplicates += times - 1
      if (atKill?.inFlight.has(id)) duplicatesInFlight += times - 1
    }
    if (Number(id.slice(1)) >= accepted) extra += 1
  }
  return {
    killAfterMs,
    accepted,
    lost,
    duplicates,
    duplicatesInFlight,
    // Received but not counted as accepted: the call under way at the kill (its count not saved).
    extra,
    waitingAtKill: atKill?.waiting,
    inFlightAtKill: atKill?.inFlight.size,
    tornAtKill: atKill?.torn,
    secondMs: second?.ms,
    secondWaiting: second?.waiting,
    secondErrors: second?.errors,
    replayed: second?.replayEvent?.count,
    leftFiles: second?.leftOnDisk.files,
    leftBytes: second?.leftOnDisk.bytes,
  }
}

function summarize(runs) {
  const sum = (key) => runs.reduce((a, r) => a + (r[key] ?? 0), 0)
  const max = (key) => Math.max(...runs.map((r) => r[key] ?? 0))
  const has = runs.some((r) => r.secondMs !== undefined)
  return {
    trials: runs.length,
    accepted: sum('accepted'),
    lost: sum('lost'),
    lostMax: max('lost'),
    duplicates: sum('duplicates'),
    duplicatesMax: max('duplicates'),
    duplicatesInFlight: sum('duplicatesInFlight'),
    extra: sum('extra'),
    ...(has
      ? {
          waitingAtKill: sum('waitingAtKill'),
          inFlightAtKill: sum('inFlightAtKill'),
          torn: sum('tornAtKill'),
          replayed: sum('replayed'),
          secondMsMax: max('secondMs'),
          secondWaiting: sum('secondWaiting'),
          leftFilesMax: max('leftFiles'),
        }
      : {}),
    runs,
  }
}
