'use strict'
// The benchmark's baseline: the least work a correct client must do, written by hand.
// Build the enriched event, JSON.stringify it once, join the texts into batches of at most
// 500 KB, POST them to /v1/batch with Basic auth over node:http and a keep-alive agent.
//
// Policy (the same one eventrail documents, so the ratios measure cost, not policy):
// - a flush starts when `flushAt` events are queued, when `flush()` is called, or
//   `flushInterval` ms after the first event that did not start one (an unref'd timer);
//   one started by track() runs in a microtask, after the caller's synchronous code, so that
//   track() itself only enqueues and the events of that run of calls share a request;
// - a flush sends everything queued, split into requests of at most 500 KB (exact UTF-8 bytes);
// - at most `maxInFlight` (4) requests at once per client; a freed slot sends the next batch
//   when a flush is pending or `flushAt` events are queued;
// - one process-wide keep-alive agent (64 sockets, free sockets closed after 4 s), so an idle
//   client holds no timer and, after 4 s, no socket;
// - network errors, 408, 429 and 5xx are retried twice after 100 ms and 200 ms; anything
//   else counts the batch as failed;
// - an event over 32 KB is refused (counted, never sent), as the service would refuse its batch.
// It has no validation, callbacks, queue limit or rate limit: those are eventrail's extra work.

const http = require('node:http')
const { randomUUID } = require('node:crypto')

/** 500 KB, as the wire spec counts it: 1024-byte KB of UTF-8 JSON. */
const MAX_BATCH_BYTES = 500 * 1024
/** 32 KB: the largest event the service takes; a bigger one is refused here, never sent. */
const MAX_EVENT_BYTES = 32 * 1024
const BATCH_OPEN = '{"batch":['
const BATCH_CLOSE_OPEN = '],"sentAt":"'
const BATCH_CLOSE = '"}'
/** Bytes of `{"batch":[` + `],"sentAt":"<24-char ISO date>"}`. */
const ENVELOPE_BYTES = BATCH_OPEN.length + BATCH_CLOSE_OPEN.length + 24 + BATCH_CLOSE.length
const LIBRARY = { name: 'baseline', version: '1.0.0' }
const RETRY_DELAYS_MS = [100, 200]

let sharedAgent

function agent() {
  sharedAgent ??= new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 })
  return sharedAgent
}

/**
 * Splits queued texts into the requests a flush sends: as many whole events as fit in
 * `maxBodyBytes` each, in order. `bytes[i]` is the UTF-8 length of `texts[i]`.
 * Returns the count of events for the next request (at least 1 when any is queued).
 */
function nextBatchCount(bytes, start, end, maxBodyBytes) {
  if (start >= end) return 0
  let size = ENVELOPE_BYTES + bytes[start]
  let count = 1
  while (start + count < end) {
    const next = size + 1 + bytes[start + count]
    if (next > maxBodyBytes) break
    size = next
    count += 1
  }
  return count
}

/** Joins serialized events into a `/v1/batch` body. */
function buildBody(texts, sentAt) {
  return BATCH_OPEN + texts.join(',') + BATCH_CLOSE_OPEN + sentAt + BATCH_CLOSE
}

class BaselineClient {
  /**
   * @param {string} writeKey
   * @param {{ host: string, flushAt?: number, flushInterval?: number, maxInFlight?: number, maxBodyBytes?: number }} options
   */
  constructor(writeKey, options) {
    const url = new URL('/v1/batch', options.host)
    this.hostname = url.hostname
    this.port = Number(url.port) || 80
    this.path = url.pathname
    this.authorization = 'Basic ' + Buffer.from(writeKey + ':').toString('base64')
    this.flushAt = options.flushAt ?? 20
    this.flushInterval = options.flushInterval ?? 10_000
    this.maxInFlight = options.maxInFlight ?? 4
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_BATCH_BYTES
    this.texts = []
    this.bytes = []
    this.head = 0
    this.inFlight = 0
    this.flushing = false
    this.timer = undefined
    this.waiters = []
    this.pumpScheduled = false
    this.pumpSoon = () => {
      this.pumpScheduled = false
      this.pump()
    }
    this.sent = 0
    this.failed = 0
    this.refused = 0
    this.requests = 0
  }

  /** Queued events not yet in a request. */
  get queued() {
    return this.texts.length - this.head
  }

  /** Enriches, serializes once and queues a track event. */
  track(message) {
    // Object.assign, not `{ ...message, type, … }`: on Node 20 (V8 11.3) a spread followed by
    // more properties costs several µs more per call, in building the object and in stringifying it.
    const text = JSON.stringify(
      Object.assign({}, message, {
        type: 'track',
        messageId: randomUUID(),
        timestamp: new Date().toISOString(),
        context: message.context === undefined ? { library: LIBRARY } : Object.assign({}, message.context, { library: LIBRARY }),
      }),
    )
    const bytes = Buffer.byteLength(text)
    if (bytes > MAX_EVENT_BYTES) {
      this.refused += 1
      return this
    }
    this.texts.push(text)
    this.bytes.push(bytes)
    if (this.queued >= this.flushAt) {
      if (!this.pumpScheduled) {
        this.pumpScheduled = true
        queueMicrotask(this.pumpSoon)
      }
    } else if (this.timer === undefined && this.flushInterval > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.flushing = true
        this.pump()
      }, this.flushInterval)
      this.timer.unref()
    }
    return this
  }

  /** Sends everything queued; resolves when every event has been acknowledged or has failed. */
  flush() {
    if (this.queued === 0 && this.inFlight === 0) return Promise.resolve()
    this.flushing = true
    return new Promise((resolve) => {
      this.waiters.push(resolve)
      this.pump()
    })
  }

  pump() {
    while (this.inFlight < this.maxInFlight && this.queued > 0 && (this.flushing || this.queued >= this.flushAt)) {
      const count = nextBatchCount(this.bytes, this.head, this.texts.length, this.maxBodyBytes)
      const start = this.head
      this.head += count
      let bodyBytes = ENVELOPE_BYTES + count - 1
      for (let i = start; i < this.head; i++) bodyBytes += this.bytes[i]
      const body = buildBody(this.texts.slice(start, this.head), new Date().toISOString())
      this.compact()
      this.post(body, bodyBytes, count, 0)
    }
    if (this.queued === 0) {
      this.flushing = false
      if (this.timer !== undefined) {
        clearTimeout(this.timer)
        this.timer = undefined
      }
    }
  }

  compact() {
    if (this.head === this.texts.length) {
      this.texts = []
      this.bytes = []
      this.head = 0
    } else if (this.head > 1024 && this.head * 2 > this.texts.length) {
      this.texts = this.texts.slice(this.head)
      this.bytes = this.bytes.slice(this.head)
      this.head = 0
    }
  }

  post(body, bodyBytes, count, attempt) {
    if (attempt === 0) this.inFlight += 1
    this.requests += 1
    const req = http.request({
      hostname: this.hostname,
      port: this.port,
      path: this.path,
      method: 'POST',
      agent: agent(),
      headers: {
        Authorization: this.authorization,
        'Content-Type': 'application/json',
        'Content-Length': bodyBytes,
      },
    })
    let settled = false
    const retryOrFail = () => {
      if (settled) return
      settled = true
      if (attempt < RETRY_DELAYS_MS.length) {
        setTimeout(() => this.post(body, bodyBytes, count, attempt + 1), RETRY_DELAYS_MS[attempt])
      } else this.done(count, false)
    }
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => {
        const status = res.statusCode
        // On the next tick, after the agent has put the socket back in its pool for reuse.
        process.nextTick(() => {
          if (status === 408 || status === 429 || status >= 500) return retryOrFail()
          if (settled) return
          settled = true
          this.done(count, status >= 200 && status < 300)
        })
      })
    })
    req.on('error', retryOrFail)
    req.end(body)
  }

  done(count, ok) {
    this.inFlight -= 1
    if (ok) this.sent += count
    else this.failed += count
    this.pump()
    if (this.inFlight === 0 && this.queued === 0 && this.waiters.length > 0) {
      const waiters = this.waiters
      this.waiters = []
      for (const resolve of waiters) resolve()
    }
  }

  stats() {
    const { queued, inFlight, sent, failed, refused, requests } = this
    return { queued, inFlight, sent, failed, refused, requests }
  }
}

/** Closes the shared agent's sockets (tests; the bench processes just exit). */
function destroyAgent() {
  sharedAgent?.destroy()
  sharedAgent = undefined
}

module.exports = { BaselineClient, nextBatchCount, buildBody, destroyAgent, MAX_BATCH_BYTES, MAX_EVENT_BYTES, ENVELOPE_BYTES }
