// The scenarios, as run inside a fresh worker process (bench/worker.mjs) for one client.
// Each returns a flat object of figures; the runner adds what the sink counted.

import { loadClient } from './clients.mjs'
import { orderCompleted, bigPayloads } from './events.mjs'

const CALLS_PER_YIELD = 100

const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function gcNow() {
  // A few passes: weak and finalization work of one pass frees more in the next.
  for (let i = 0; i < 4; i++) globalThis.gc()
}

function heapAndExternal() {
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

function cpuMs(since) {
  const cpu = process.cpuUsage(since)
  return (cpu.user + cpu.system) / 1000
}

/**
 * Tracks `count` order events like a busy server: fresh message objects, yielding to the event
 * loop every 100 calls. Returns the nanoseconds spent inside track() (message building excluded).
 */
async function trackMany(client, count, offset = 0, perYield = CALLS_PER_YIELD) {
  let inTrack = 0n
  const batch = new Array(perYield)
  for (let start = 0; start < count; start += perYield) {
    const n = Math.min(perYield, count - start)
    for (let i = 0; i < n; i++) batch[i] = orderCompleted(offset + start + i)
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i++) client.track(batch[i])
    inTrack += process.hrtime.bigint() - t0
    await yieldToLoop()
  }
  return inTrack
}

/**
 * Scenario 1: the cost to the caller, per call and in total CPU until every event is acknowledged.
 * The same run gives scenario 2a: events per second from the first call to the last acknowledgement.
 */
export async function caller({ clientName, host, calls, spoolDir }) {
  const adapter = await loadClient(clientName)
  // `spoolDir` (eventrail only, scenario 7): the same run with the disk spool on.
  const client = adapter.create('bench-write-key', { host, ...(spoolDir ? { spoolDir } : {}) })
  gcNow()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const inTrack = await trackMany(client, calls)
  const trackedMs = performance.now() - t0
  await client.flush()
  const wallMs = performance.now() - t0
  return {
    nsPerCall: Number(inTrack) / calls,
    cpuMs: cpuMs(cpu0),
    cpuUsPerEvent: (cpuMs(cpu0) * 1000) / calls,
    trackedMs,
    wallMs,
    eventsPerSec: calls / (wallMs / 1000),
    sent: calls,
    clientFailed: client.failed(),
    // The kernel's share (writes, and with the spool fdatasync and unlink), for scenario 7's table.
    cpuSystemUsPerEvent: process.cpuUsage(cpu0).system / calls,
    ...(spoolDir ? { spoolBytesLeft: client.spool().bytes, spoolAvailable: client.spool().available } : {}),
  }
}

/** Scenario 2: events per second delivered and acknowledged. */
export async function throughput({ clientName, host, events, flushAt, shape }) {
  const adapter = await loadClient(clientName)
  const client = adapter.create('bench-write-key', { host, flushAt, shape })
  gcNow()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  // 'fill': a producer that queues as fast as it can (a yield every 1,000 calls, not 100).
  await trackMany(client, events, 0, shape === 'fill' ? 1_000 : CALLS_PER_YIELD)
  await client.flush()
  const wallMs = performance.now() - t0
  return {
    eventsPerSec: events / (wallMs / 1000),
    wallMs,
    cpuMs: cpuMs(cpu0),
    cpuUsPerEvent: (cpuMs(cpu0) * 1000) / events,
    sent: events,
    clientFailed: client.failed(),
  }
}

/**
 * Scenario 3: memory held per event while `events` wait on a paused sink; then the sink resumes
 * (the runner does it at the checkpoint) and every event must arrive.
 */
export async function memory({ clientName, host, events }, checkpoint) {
  const adapter = await loadClient(clientName)
  gcNow()
  const before = heapAndExternal()
  const client = adapter.create('bench-write-key', { host })
  await trackMany(client, events)
  gcNow()
  const held = heapAndExternal() - before
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20
  const atPause = await checkpoint('queued')
  const t0 = performance.now()
  await client.flush()
  return {
    bytesPerEvent: held / events,
    heapMbWhileQueued: heapMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    drainMs: performance.now() - t0,
    requestsHeld: atPause.held,
    sent: events,
    clientFailed: client.failed(),
  }
}

/** Scenario 5: events near and over the 32 KB limit, half of them multi-byte text. */
export async function big({ clientName, host }) {
  const adapter = await loadClient(clientName)
  const client = adapter.create('bench-write-key', { host })
  const events = bigPayloads()
  for (let i = 0; i < events.length; i++) {
    client.track(events[i].message)
    if (i % 10 === 9) await yieldToLoop()
  }
  await client.flush()
  return {
    valid: events.filter((e) => e.valid).length,
    oversize: events.filter((e) => !e.valid).length,
    clientFailed: client.failed(),
  }
}

/**
 * Scenario 6: `tenants` instances, each with its own write key, each tracking one event; then
 * flush() on all of them; then idle. Counts live timers by wrapping the global timer functions
 * (installed before the client is imported), so unref'd timers are seen too. Sockets are counted
 * by the sink (the process's own count leaves out unref'd sockets, such as free keep-alive ones).
 */
export async function tenants({ clientName, host, tenants: count, idleWaitMs }, checkpoint) {
  const timers = watchTimers()
  const adapter = await loadClient(clientName)
  // One tenant first, so that what every client pays once (lazy imports, agents, pools) is not
  // counted per instance.
  const warm = adapter.create('tenant-key-warm-up', { host })
  warm.track(orderCompleted(0))
  await warm.flush()
  gcNow()
  const before = heapAndExternal()
  const t0 = performance.now()
  const instances = new Array(count)
  for (let i = 0; i < count; i++) {
    instances[i] = adapter.create(`tenant-key-${i}`, { host })
    instances[i].track(orderCompleted(i))
    if (i % CALLS_PER_YIELD === CALLS_PER_YIELD - 1) await yieldToLoop()
  }
  const createdMs = performance.now() - t0
  const t1 = performance.now()
  await Promise.all(instances.map((instance) => instance.flush()))
  const flushAllMs = performance.now() - t1
  await sleep(100)
  gcNow()
  const held = heapAndExternal() - before
  const idle = timers.count()
  const sinkIdle = await checkpoint('idle')
  let later = {}
  let sinkLater = {}
  let heldLater
  if (idleWaitMs > 0) {
    await sleep(idleWaitMs)
    later = timers.count()
    sinkLater = await checkpoint('idle-later')
    gcNow()
    heldLater = heapAndExternal() - before
  }
  let failed = 0
  for (const instance of instances) failed += instance.failed()
  return {
    bytesPerInstance: held / count,
    bytesPerIdleInstance: heldLater === undefined ? undefined : heldLater / count,
    createAndTrackMs: createdMs,
    flushAllMs,
    totalMs: createdMs + flushAllMs,
    timersIdle: idle.timers,
    refTimersIdle: idle.refTimers,
    socketsIdle: sinkIdle.openSockets,
    timersLater: later.timers,
    refTimersLater: later.refTimers,
    socketsLater: sinkLater.openSockets,
    sent: count + 1,
    clientFailed: failed,
    instances: instances.length,
  }
}

/** Live timers (created, neither fired nor cleared), by wrapping setTimeout and setInterval. */
function watchTimers() {
  const live = new Set()
  const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci } = globalThis
  globalThis.setTimeout = function (fn, ms, ...args) {
    const handle = st(
      (...a) => {
        live.delete(handle)
        return typeof fn === 'function' ? fn(...a) : undefined
      },
      ms,
      ...args,
    )
    live.add(handle)
    return handle
  }
  globalThis.clearTimeout = function (handle) {
    live.delete(handle)
    return ct(handle)
  }
  globalThis.setInterval = function (fn, ms, ...args) {
    const handle = si(fn, ms, ...args)
    live.add(handle)
    return handle
  }
  globalThis.clearInterval = function (handle) {
    live.delete(handle)
    return ci(handle)
  }
  return {
    count() {
      let refTimers = 0
      for (const handle of live) if (typeof handle?.hasRef !== 'function' || handle.hasRef()) refTimers += 1
      return { timers: live.size, refTimers }
    },
  }
}

export const SCENARIOS = { caller, throughput, memory, big, tenants }
