// The scenarios of `npm run bench:outage`, run in a child process per client: a node:http server
// on 127.0.0.1 whose answers the scenario decides, and one client with its own defaults.

import { createServer } from 'node:http'
import { join } from 'node:path'

const LIMIT_MS = 45_000
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A client with its own defaults: only host and an error handler (counted) are set. */
async function createClient(name, { host, root, onError }) {
  if (name === 'eventrail') {
    const { Analytics } = await import(join(root, 'dist', 'index.js'))
    const client = new Analytics('bench-write-key', { host, errorHandler: onError })
    return { track: (m, cb) => client.track(m, cb), flush: () => client.flush(), stats: () => client.stats() }
  }
  if (name === 'analytics-node@6') {
    const Legacy = (await import('analytics-node')).default
    const client = new Legacy('bench-write-key', { host, errorHandler: onError })
    return {
      track: (m, cb) => client.track(m, cb),
      // Its flush() sends one batch of flushAt: call it until the queue is empty.
      flush: () => {
        const flushes = []
        while (client.queue.length > 0) flushes.push(client.flush())
        return Promise.allSettled(flushes)
      },
    }
  }
  if (name === '@segment/analytics-node@3') {
    const { Analytics } = await import('@segment/analytics-node')
    const client = new Analytics({ writeKey: 'bench-write-key', host })
    client.on('error', onError)
    return { track: (m, cb) => client.track(m, cb), flush: () => client.flush() }
  }
  throw new Error(`unknown client ${name}`)
}

/** A server on 127.0.0.1 whose answer to each request `decide` chooses: a status, or 'hang'. */
async function startServer(decide) {
  const seen = { requests: 0, accepted: new Set(), times: [] }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      seen.requests += 1
      seen.times.push(Date.now())
      const answer = decide(seen.requests)
      if (answer === 'hang') return
      if (answer === 200) {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
          for (const m of body.batch ?? [body]) seen.accepted.add(m.messageId)
        } catch {
          // a body the bench cannot read is not counted as accepted
        }
      }
      res.writeHead(answer, { 'content-type': 'application/json' })
      res.end(answer === 200 ? '{"success":true}' : '{"error":"down"}')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}`
  const close = () => {
    server.closeAllConnections?.()
    return new Promise((resolve) => server.close(resolve))
  }
  return { url, seen, close }
}

async function closedPort() {
  const { url, close } = await startServer(() => 200)
  await close()
  return url
}

const message = (i, prefix = 'm') => ({
  userId: `user-${i % 500}`,
  event: 'Order Completed',
  messageId: `${prefix}${i}`,
  properties: { total: 42.5 },
})

/** Runs one scenario for one client; resolves with its figures. */
export async function runScenario(clientName, scenario, { root, quick }) {
  let unhandled = 0
  process.on('unhandledRejection', () => (unhandled += 1))
  process.on('uncaughtException', () => (unhandled += 1))
  let handlerCalls = 0
  const onError = () => (handlerCalls += 1)
  if (scenario.startsWith('flaky-25')) return flaky(clientName, { root, quick, onError, isLarge: scenario === 'flaky-25-100k' })
  if (scenario === 'recovery') return recovery(clientName, { root, quick, onError })

  const server = scenario === 'refused' ? undefined : await startServer(() => (scenario === 'hang' ? 'hang' : 500))
  const host = server?.url ?? (await closedPort())
  const client = await createClient(clientName, { host, root, onError })
  let callbacks = 0
  let flushed = false
  const t0 = performance.now()
  for (let i = 0; i < 100; i++) client.track(message(i), () => (callbacks += 1))
  void Promise.resolve(client.flush())
    .catch(() => undefined)
    .then(() => (flushed = true))
  while (!(flushed && callbacks >= 100) && performance.now() - t0 < LIMIT_MS) await sleep(5)
  const ms = performance.now() - t0
  await sleep(50)
  const result = { settled: flushed && callbacks >= 100, ms, callbacks, requests: server?.seen.requests, handlerCalls, unhandled }
  await server?.close()
  return result
}

async function flaky(clientName, { root, quick, onError, isLarge }) {
  // Every client: 10,000 at 1,000 a second. eventrail also: 100,000 at 10,000 a second (the
  // peers' retries at 25 % would take minutes there). Loss figures are also per 10,000 messages.
  const messages = quick ? 5_000 : isLarge ? 100_000 : 10_000
  const rate = isLarge && !quick ? 10_000 : 1_000
  let seed = 20_261_125
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
  const server = await startServer(() => (random() < 0.25 ? 500 : 200))
  const client = await createClient(clientName, { host: server.url, root, onError })
  let callbacks = 0
  const t0 = performance.now()
  for (let i = 0; i < messages; i++) {
    client.track(message(i), () => (callbacks += 1))
    if (i % (rate / 100) === rate / 100 - 1) {
      const due = ((i + 1) / rate) * 1000
      const wait = due - (performance.now() - t0)
      if (wait > 0) await sleep(wait)
    }
  }
  await Promise.resolve(client.flush()).catch(() => undefined)
  while (callbacks < messages && performance.now() - t0 < (messages / rate) * 1000 + 120_000) await sleep(20)
  const ms = performance.now() - t0
  await sleep(200)
  const lost = messages - server.seen.accepted.size
  const result = { messages, rate, lost, requests: server.seen.requests, ms }
  await server.close()
  return result
}

async function recovery(clientName, { root, quick, onError }) {
  const downMs = quick ? 5_000 : 30_000
  const afterMs = 10_000
  let isDown = true
  const server = await startServer(() => (isDown ? 500 : 200))
  const client = await createClient(clientName, { host: server.url, root, onError })
  const outcomes = new Map()
  const t0 = Date.now()
  let backAt = 0
  let sentWhileDown = 0
  let sentAfter = 0
  for (let i = 0; Date.now() - t0 < downMs + afterMs; i++) {
    if (isDown && Date.now() - t0 >= downMs) {
      isDown = false
      backAt = Date.now()
    }
    const id = `r${i}`
    if (isDown) sentWhileDown += 1
    else sentAfter += 1
    client.track(message(i, 'r'), (err) => outcomes.set(id, err === undefined || err === null))
    await sleep(50)
  }
  await Promise.resolve(client.flush()).catch(() => undefined)
  await sleep(1_000)
  const downTimes = server.seen.times.filter((t) => t < backAt)
  const perSecond = new Map()
  for (const t of downTimes) perSecond.set(Math.floor((t - t0) / 1000), (perSecond.get(Math.floor((t - t0) / 1000)) ?? 0) + 1)
  const firstAfter = server.seen.times.find((t) => t >= backAt)
  let failedWhileDown = 0
  let deliveredAfter = 0
  for (let i = 0; i < sentWhileDown + sentAfter; i++) {
    const accepted = server.seen.accepted.has(`r${i}`)
    if (i < sentWhileDown && !accepted) failedWhileDown += 1
    if (i >= sentWhileDown && accepted) deliveredAfter += 1
  }
  const result = {
    resumeMs: firstAfter === undefined ? undefined : firstAfter - backAt,
    downRate: downTimes.length / (downMs / 1000),
    downPeak: Math.max(0, ...perSecond.values()),
    sentWhileDown,
    failedWhileDown,
    sentAfter,
    deliveredAfter,
  }
  await server.close()
  return result
}
