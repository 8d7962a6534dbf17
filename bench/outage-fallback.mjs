// The "fallback" scenario of `npm run bench:outage` (eventrail only: the other clients have no
// fallback host). Two node:http services on 127.0.0.1: the primary (`host`) answers 500 from the
// start, the fallback (`fallbackHosts: [url]`) answers 200. 20 messages a second throughout; after
// DOWN_MS the primary answers 200 again. Figures: the time from the first track() to the first
// message the fallback accepts; the time from the primary's return to the first message it
// accepts; messages lost (accepted by neither) and accepted twice or more (duplicates); callbacks
// with an error; requests the primary saw while down (its probes, and the attempts before the
// breaker opened). Then, with a new client, both hosts answer 500: 100 messages and flush(), the
// time until every callback has run and flush() has settled (as the hard-down rows measure it).

import { createServer } from 'node:http'
import { join } from 'node:path'

const RATE_MS = 50
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A service on 127.0.0.1 answering `status()` to each request; it counts what it accepted. */
async function startService(status) {
  const seen = { requests: 0, times: [], accepted: new Map(), firstAcceptAt: undefined }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const now = Date.now()
      seen.requests += 1
      seen.times.push(now)
      const answer = status()
      if (answer === 200) {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
          for (const m of body.batch ?? [body]) seen.accepted.set(m.messageId, (seen.accepted.get(m.messageId) ?? 0) + 1)
          seen.firstAcceptAt ??= now
        } catch {
          // a body the bench cannot read is not counted as accepted
        }
      }
      res.writeHead(answer, { 'content-type': 'application/json' })
      res.end(answer === 200 ? '{"success":true}' : '{"error":"down"}')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () => {
    server.closeAllConnections?.()
    return new Promise((resolve) => server.close(resolve))
  }
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close }
}

/** Runs the scenario with the built package under `root`; resolves with its figures. */
export async function runFallback({ root, quick }) {
  const downMs = quick ? 5_000 : 60_000
  const afterMs = quick ? 10_000 : 40_000
  let isDown = true
  const primary = await startService(() => (isDown ? 500 : 200))
  const fallback = await startService(() => 200)
  const { Analytics } = await import(join(root, 'dist', 'index.js'))
  let handlerCalls = 0
  const client = new Analytics('bench-write-key', {
    host: primary.url,
    fallbackHosts: [fallback.url],
    errorHandler: () => (handlerCalls += 1),
  })
  const changes = []
  client.on('breaker', (c) => changes.push({ state: c.state, host: c.host === primary.url ? 'primary' : 'fallback', at: Date.now() }))
  const failedCallbacks = { count: 0 }
  let sent = 0
  const t0 = Date.now()
  let backAt = 0
  while (Date.now() - t0 < downMs + afterMs) {
    if (isDown && Date.now() - t0 >= downMs) {
      isDown = false
      backAt = Date.now()
    }
    client.track({ userId: `user-${sent % 500}`, event: 'Order Completed', messageId: `fb${sent}`, properties: { total: 42.5 } }, (err) => {
      if (err) failedCallbacks.count += 1
    })
    sent += 1
    await sleep(RATE_MS)
  }
  await client.closeAndFlush().catch(() => undefined)
  let lost = 0
  let duplicates = 0
  for (let i = 0; i < sent; i++) {
    const times = (primary.seen.accepted.get(`fb${i}`) ?? 0) + (fallback.seen.accepted.get(`fb${i}`) ?? 0)
    if (times === 0) lost += 1
    if (times > 1) duplicates += 1
  }
  const result = {
    downMs,
    messages: sent,
    firstFallbackMs: fallback.seen.firstAcceptAt === undefined ? undefined : fallback.seen.firstAcceptAt - t0,
    returnMs: primary.seen.firstAcceptAt === undefined ? undefined : primary.seen.firstAcceptAt - backAt,
    lost,
    duplicates,
    failedCallbacks: failedCallbacks.count,
    handlerCalls,
    primaryRequestsWhileDown: primary.seen.times.filter((t) => t < backAt).length,
    fallbackRequests: fallback.seen.requests,
    breaker: changes.map((c) => `${c.state} ${c.host} at ${((c.at - t0) / 1000).toFixed(1)} s`).join(', '),
  }
  await Promise.all([primary.close(), fallback.close()])
  return { ...result, ...(await bothDown(Analytics)) }
}

// Both hosts answer 500: 100 messages, flush(); the time until every callback has run and flush() settled.
async function bothDown(Analytics) {
  const primary = await startService(() => 500)
  const fallback = await startService(() => 500)
  const client = new Analytics('bench-write-key', { host: primary.url, fallbackHosts: [fallback.url], errorHandler: () => undefined })
  let callbacks = 0
  let failed = 0
  const t0 = performance.now()
  for (let i = 0; i < 100; i++)
    client.track({ userId: `user-${i}`, event: 'Order Completed', messageId: `bd${i}` }, (err) => {
      callbacks += 1
      if (err?.name === 'ServiceUnavailableError') failed += 1
    })
  await client.flush().catch(() => undefined)
  while (callbacks < 100 && performance.now() - t0 < 45_000) await sleep(5)
  const bothDownMs = performance.now() - t0
  await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  await Promise.all([primary.close(), fallback.close()])
  return { bothDownMs, bothDownCallbacks: callbacks, bothDownUnavailable: failed }
}

/** The scenario's table, in Markdown. */
export function renderFallback(r) {
  const sec = (ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`)
  const lines = [
    `**Fallback host** (eventrail only): the primary answers 500 for ${sec(r?.downMs)}, the fallback 200; 20 messages a second throughout.`,
    '',
    '| first delivery through the fallback (target ≤ 2 s) | traffic back on the primary after its return (target ≤ 30 s) | messages | lost | duplicates | callbacks with an error | primary requests while down | both hosts down: 100 messages settled |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  if (r.error) lines.push(`| ${r.error} | | | | | | | |`)
  else
    lines.push(
      `| ${sec(r.firstFallbackMs)} | ${sec(r.returnMs)} | ${r.messages} | ${r.lost} | ${r.duplicates} | ${r.failedCallbacks} | ${r.primaryRequestsWhileDown} | ${sec(r.bothDownMs)} (${r.bothDownUnavailable} of 100 \`ServiceUnavailableError\`) |`,
    )
  return lines.join('\n')
}
