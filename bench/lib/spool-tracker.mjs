// The process that is killed, forked by bench/outage-kill.mjs and bench/spool.mjs with its job in
// the SPOOL_TRACKER environment variable (JSON):
//
// - { mode: 'rate', client, host, rate, spoolDir?, counterFile, maxMs }: tracks the bench's order
//   event with explicit messageIds `k0`, `k1` … at `rate` a second until it is killed. After each
//   track() call returns, the count of calls that returned is written (blocking, at offset 0) to
//   `counterFile`: ids below the count were accepted; the one at the count may have been.
// - { mode: 'fill', host, count, spoolDir }: eventrail with the spool tracks `count` messages (its service down)
//   against a service that is down (yielding every 100 calls), says so, then SIGKILLs itself.
//
// Each client runs with its own defaults; only host, the spool and an error handler are set.

import { closeSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { orderCompleted } from './events.mjs'

const job = JSON.parse(process.env.SPOOL_TRACKER)
const root = process.env.SPOOL_TRACKER_ROOT
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const message = (i) => ({ ...orderCompleted(i), messageId: `k${i}` })

// A service that is down: every request fails as a refused connection would. (The filler sends to
// the replayer's host with its key: a spool's records are only ever sent with the key and host they
// were accepted under.)
const refused = () => Promise.reject(new TypeError('fetch failed: connect ECONNREFUSED (the bench: the service is down)'))

async function createClient(name, { host, spoolDir, down = false }) {
  const onError = () => {}
  if (name === 'eventrail') {
    const { Analytics } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
    const client = new Analytics('bench-write-key', {
      host,
      errorHandler: onError,
      ...(spoolDir ? { spool: { dir: spoolDir } } : {}),
      ...(down ? { fetch: refused } : {}),
    })
    return (m) => client.track(m)
  }
  if (name === 'analytics-node@6') {
    const Legacy = (await import('analytics-node')).default
    const client = new Legacy('bench-write-key', { host, errorHandler: onError })
    return (m) => client.track(m)
  }
  if (name === '@segment/analytics-node@3') {
    const { Analytics } = await import('@segment/analytics-node')
    const client = new Analytics({ writeKey: 'bench-write-key', host })
    client.on('error', onError)
    return (m) => client.track(m)
  }
  throw new Error(`unknown client ${name}`)
}

async function atRate({ client, host, rate, spoolDir, counterFile, maxMs }) {
  const track = await createClient(client, { host, spoolDir })
  const fd = openSync(counterFile, 'w')
  const counter = Buffer.alloc(8)
  const saveCount = (n) => {
    counter.writeUInt32LE(n, 0)
    writeSync(fd, counter, 0, 4, 0)
  }
  saveCount(0)
  // Paced in ticks of 5 ms (or one message a tick below 200 a second), catching up when late. At
  // 2,000 a second a tick is 10 messages, half of flushAt 20: a batch is not filled by every tick,
  // so what waits in a queue at the kill is not an artefact of the pacing.
  const tickMs = Math.max(5, 1000 / rate)
  await new Promise((resolve) => process.send({ type: 'ready' }, resolve))
  const t0 = performance.now()
  let i = 0
  while (performance.now() - t0 < maxMs) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate) + 1
    while (i < due) {
      track(message(i))
      i += 1
      saveCount(i)
    }
    await sleep(tickMs)
  }
  closeSync(fd)
  process.send({ type: 'done', tracked: i }, () => process.exit(0))
}

async function fill({ host, count, spoolDir }) {
  const track = await createClient('eventrail', { host, spoolDir, down: true })
  for (let i = 0; i < count; i++) {
    track(message(i))
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve))
  }
  await new Promise((resolve) => process.send({ type: 'filled', tracked: count }, resolve))
  process.kill(process.pid, 'SIGKILL')
}

if (job.mode === 'rate') await atRate(job)
else if (job.mode === 'fill') await fill(job)
else throw new Error(`unknown mode ${job.mode}`)
