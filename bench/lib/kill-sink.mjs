// The service of the kill -9 scenarios (bench/outage-kill.mjs): a node:http server on 127.0.0.1
// that answers 200 (at once, or after `latencyMs`: a slow service) and remembers every messageId
// it accepted, how often, and in which phase (`first`: the process that is killed; `second`: the
// process that replays the spool after it).

import { createServer } from 'node:http'
import { gunzipSync } from 'node:zlib'

export async function startKillSink({ latencyMs = 0 } = {}) {
  /** messageId -> { first, second }: receipts in each phase. */
  const received = new Map()
  const state = { phase: 'first', requests: { first: 0, second: 0 }, unreadable: 0, firstAt: { first: undefined, second: undefined } }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const phase = state.phase
      state.requests[phase] += 1
      state.firstAt[phase] ??= performance.timeOrigin + performance.now()
      try {
        let raw = Buffer.concat(chunks)
        if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
        const body = JSON.parse(raw.toString('utf8'))
        for (const m of Array.isArray(body.batch) ? body.batch : [body]) {
          const seen = received.get(m.messageId) ?? { first: 0, second: 0 }
          seen[phase] += 1
          received.set(m.messageId, seen)
        }
      } catch {
        // a body the bench cannot read is not counted as received
        state.unreadable += 1
      }
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"success":true}')
      }
      if (latencyMs > 0) setTimeout(answer, latencyMs)
      else answer()
    })
    // A client killed mid-request: its socket closes; nothing to answer.
    req.on('error', () => {})
    res.on('error', () => {})
  })
  server.keepAliveTimeout = 5000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    state,
    close() {
      server.closeAllConnections?.()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}
