'use strict'
// The benchmark's sink: a minimal stand-in for the service on 127.0.0.1. It answers like the
// wire spec (200, or 400 for a body over 500 KB, an item over 32 KB when `checkEvents` is on,
// or invalid JSON; 401 without Basic auth) and counts what arrived: requests, bytes, the largest
// request, unique and duplicate messageIds of accepted events, connections and peak sockets.
// `pause()` holds every new request unanswered (its body unread) until `resume()`.
//
// Run as a child process (`node bench/lib/sink.cjs`, with an IPC channel) it listens on a free
// port, sends `{ type: 'ready', port }`, then answers `{ id, cmd }` messages: reset, stats,
// pause, resume, close. It exits when its parent goes away.

const http = require('node:http')
const { faultPlan } = require('./sink-faults.cjs')

const MAX_BODY_BYTES = 500 * 1024
const MAX_EVENT_BYTES = 32 * 1024

function emptyCounts() {
  return {
    requests: 0,
    accepted: 0,
    refused: 0,
    refusedOversize: 0,
    refusedEventTooLarge: 0,
    refusedInvalidJson: 0,
    unauthorized: 0,
    bytes: 0,
    largestRequest: 0,
    events: 0,
    unique: 0,
    duplicates: 0,
    oversizeEventsReceived: 0,
    byEvent: {},
    connections: 0,
    peakSockets: 0,
    peakInFlight: 0,
    resentRequests: 0,
    faults: 0,
    // When the first request of the count began to arrive and the last one was read (epoch ms, to compare with a client's clock).
    firstRequestAt: undefined,
    lastRequestAt: undefined,
  }
}

/**
 * @param {{ maxBodyBytes?: number, maxEventBytes?: number, oversizeStatus?: number, checkEvents?: boolean, latencyMs?: number, faultRate?: number }} [options]
 *   `latencyMs`: how long each answer is held after its body was read, like a service across a network.
 *   `faultRate`: the share of requests that fail (bench/lib/sink-faults.cjs); 0 for none.
 */
function createSink(options = {}) {
  const settings = {
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    maxEventBytes: options.maxEventBytes ?? MAX_EVENT_BYTES,
    oversizeStatus: options.oversizeStatus ?? 400,
    checkEvents: options.checkEvents ?? false,
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
  }
  let counts = emptyCounts()
  let fault = faultPlan(settings.faultRate)
  let arrivals = 0
  let firstIds = new Set()
  let inFlight = 0
  let seen = new Set()
  let openSockets = 0
  let paused = false
  let held = []
  const sockets = new Set()

  const server = http.createServer((req, res) => {
    if (paused) held.push([req, res])
    else handle(req, res)
  })
  server.keepAliveTimeout = 5000
  server.on('connection', (socket) => {
    sockets.add(socket)
    counts.connections += 1
    openSockets += 1
    if (openSockets > counts.peakSockets) counts.peakSockets = openSockets
    socket.on('close', () => {
      sockets.delete(socket)
      openSockets -= 1
    })
  })

  function handle(req, res) {
    counts.firstRequestAt ??= performance.timeOrigin + performance.now()
    inFlight += 1
    if (inFlight > counts.peakInFlight) counts.peakInFlight = inFlight
    res.on('close', () => (inFlight -= 1))
    const planned = settings.faultRate > 0 ? fault(arrivals++) : { kind: 'ok' }
    if (planned.kind !== 'ok') counts.faults += 1
    if (planned.kind === 'reset') return req.socket.destroy()
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      size += chunk.length
      chunks.push(chunk)
    })
    req.on('end', () => {
      counts.lastRequestAt = performance.timeOrigin + performance.now()
      counts.requests += 1
      counts.bytes += size
      if (size > counts.largestRequest) counts.largestRequest = size
      // A request whose first messageId came before is a retry (or a client's resend).
      const firstId = /"messageId":"([^"]*)"/.exec(Buffer.concat(chunks, size).toString('utf8', 0, 4096))?.[1]
      if (firstId !== undefined) {
        if (firstIds.has(firstId)) counts.resentRequests += 1
        else firstIds.add(firstId)
      }
      if (planned.kind === 'hang') return
      const status = planned.kind === 'status' ? planned.status : judge(req, Buffer.concat(chunks, size), size)
      if (status === 200) counts.accepted += 1
      else counts.refused += 1
      const answer = () => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': status === 200 ? 2 : 16, ...planned.headers })
        res.end(status === 200 ? '{}' : '{"error":"bad"}\n')
      }
      if (settings.latencyMs > 0) setTimeout(answer, settings.latencyMs)
      else answer()
    })
  }

  function judge(req, raw, size) {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/')) return 404
    if (!isBasicAuth(req.headers.authorization)) {
      counts.unauthorized += 1
      return 401
    }
    const tooBig = size > settings.maxBodyBytes
    // Bodies over the limit are only read when events are checked (to count oversize events in them).
    if (tooBig && !settings.checkEvents) {
      counts.refusedOversize += 1
      return settings.oversizeStatus
    }
    let body
    try {
      body = JSON.parse(raw.toString('utf8'))
    } catch {
      counts.refusedInvalidJson += 1
      return 400
    }
    const items = req.url.startsWith('/v1/batch') ? (Array.isArray(body?.batch) ? body.batch : null) : [body]
    if (items === null) {
      counts.refusedInvalidJson += 1
      return 400
    }
    let hasOversizeEvent = false
    if (settings.checkEvents) {
      for (const item of items) {
        if (Buffer.byteLength(JSON.stringify(item)) > settings.maxEventBytes) {
          counts.oversizeEventsReceived += 1
          hasOversizeEvent = true
        }
      }
    }
    if (tooBig) {
      counts.refusedOversize += 1
      return settings.oversizeStatus
    }
    if (hasOversizeEvent) {
      counts.refusedEventTooLarge += 1
      return 400
    }
    for (const item of items) {
      counts.events += 1
      const id = item?.messageId
      if (seen.has(id)) {
        counts.duplicates += 1
        continue
      }
      seen.add(id)
      counts.unique += 1
      const name = typeof item?.event === 'string' ? item.event : String(item?.type)
      counts.byEvent[name] = (counts.byEvent[name] ?? 0) + 1
    }
    return 200
  }

  return {
    server,
    /** Listens on 127.0.0.1; resolves with the port. */
    listen(port = 0) {
      return new Promise((resolve) => server.listen({ port, host: '127.0.0.1', backlog: 4096 }, () => resolve(server.address().port)))
    },
    /** Counts since the last reset, and the sockets open now. */
    stats() {
      return { ...counts, byEvent: { ...counts.byEvent }, openSockets, inFlight, held: held.length, paused }
    },
    /** Starts a new count (messageIds seen are forgotten) and, optionally, changes the settings. */
    reset(next = {}) {
      counts = emptyCounts()
      counts.peakSockets = openSockets
      counts.peakInFlight = inFlight
      seen = new Set()
      for (const key of Object.keys(settings)) if (next[key] !== undefined) settings[key] = next[key]
      fault = faultPlan(settings.faultRate)
      arrivals = 0
      firstIds = new Set()
      return this.stats()
    },
    pause() {
      paused = true
    },
    resume() {
      paused = false
      const waiting = held
      held = []
      for (const [req, res] of waiting) handle(req, res)
    },
    close() {
      this.resume()
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

function isBasicAuth(header) {
  if (typeof header !== 'string' || !header.startsWith('Basic ')) return false
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon > 0
}

module.exports = { createSink, MAX_BODY_BYTES, MAX_EVENT_BYTES }

if (require.main === module) {
  const sink = createSink()
  const reply = (id, result) => process.send?.({ id, result })
  sink.listen(Number(process.env.SINK_PORT) || 0).then((port) => process.send?.({ type: 'ready', port }))
  process.on('message', async (msg) => {
    switch (msg.cmd) {
      case 'reset':
        return reply(msg.id, sink.reset(msg.options))
      case 'stats':
        return reply(msg.id, sink.stats())
      case 'pause':
        sink.pause()
        return reply(msg.id, sink.stats())
      case 'resume':
        sink.resume()
        return reply(msg.id, sink.stats())
      case 'close':
        await sink.close()
        reply(msg.id, null)
        return process.exit(0)
    }
  })
  process.on('disconnect', () => process.exit(0))
}
