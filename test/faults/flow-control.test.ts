import { gunzipSync } from 'node:zlib'
import { MAX_BATCH_BYTES, type FlushInfo } from '../../src'
import { type FaultServer } from './fault-server'
import { faultSession } from './session'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

const { server, client } = faultSession('flow-key')

function ordered(s: FaultServer): boolean {
  return s.requests.every((r) => {
    const order = r.messages.map((m: any) => Number(String(m.messageId).slice(1)))
    return order.every((n: number, k: number) => k === 0 || n > order[k - 1])
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('maxInFlight', () => {
  it.each([1, 2, 5])('never has more than %i requests open at once, and reaches that many', async (maxInFlight) => {
    // 80 requests of 25 ms (one at a time: 2 s; it was 200 of 50 ms, 10 s).
    const s = await server(() => ({ kind: 'delay', ms: 25 }))
    const analytics = client(s, { flushAt: 1, maxInFlight })
    const outcomes = new Outcomes()
    for (let i = 0; i < 80; i++) {
      analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
      if (i % 10 === 9) await sleep(2)
    }
    await analytics.flush()

    expect(s.maxConcurrent).toBe(maxInFlight)
    expect(s.accepted.size).toBe(80)
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(ordered(s)).toBe(true)
  })

  it('counts a request that waits for its retry as in flight', async () => {
    // Every other attempt fails; the retry waits up to 40 ms while holding its slot.
    const s = await server((index) => (index % 2 === 0 ? { kind: 'status', status: 503 } : { kind: 'delay', ms: 5 }))
    const analytics = client(s, { flushAt: 1, maxInFlight: 2, retryDelay: 40, maxRetryDelay: 40, maxRetries: 10 })
    const outcomes = new Outcomes()
    for (let i = 0; i < 60; i++) {
      analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
      if (i % 5 === 4) await sleep(3)
    }
    await analytics.flush()

    // A request lasts, in arrival order, from its first attempt to its last: at no arrival may
    // more than two requests have started and not ended, sleeps between attempts included.
    const span = new Map<string, [number, number]>()
    for (const r of s.requests) {
      const key = r.messages.map((m: any) => m.messageId).join(',')
      const [first, last] = span.get(key) ?? [r.index, r.index]
      span.set(key, [Math.min(first, r.index), Math.max(last, r.index)])
    }
    let most = 0
    for (let k = 0; k < s.arrivals; k++) {
      let open = 0
      for (const [first, last] of span.values()) if (first <= k && k <= last) open += 1
      most = Math.max(most, open)
    }
    expect(most).toBe(2)
    expect(s.maxConcurrent).toBeLessThanOrEqual(2)
    expect(s.accepted.size).toBe(60)
    expect(outcomes.errorNames()).toEqual({})
    expect(ordered(s)).toBe(true)
  })
})

describe('maxRequestsPerSecond', () => {
  it('starts at most maxRequestsPerSecond requests in a burst; the rest wait and go out together', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 1, maxInFlight: 100, maxRequestsPerSecond: 5 })
    const outcomes = new Outcomes()
    for (let i = 0; i < 12; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    await analytics.flush()

    expect(s.requests.map((r) => r.messages.length)).toEqual([1, 1, 1, 1, 1, 7])
    expect(s.accepted.size).toBe(12)
    expect(outcomes.errorNames()).toEqual({})
    expect(analytics.stats().requests).toBe(6)
  })

  it('holds a second burst back as well', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 1, maxInFlight: 100, maxRequestsPerSecond: 3 })
    for (let i = 0; i < 8; i++) analytics.track(trackMessage(`a${i}`))
    await analytics.flush()
    for (let i = 0; i < 8; i++) analytics.track(trackMessage(`b${i}`))
    await analytics.flush()

    // First burst: 3 singles, then the other 5 together. The second burst finds the window
    // holding the start of a moment ago (and, on a slow machine, the first singles too, when
    // the second burst comes within their second): at most 2 singles, then the rest together.
    const sizes = s.requests.map((r) => r.messages.length)
    expect(sizes.slice(0, 4)).toEqual([1, 1, 1, 5])
    const second = sizes.slice(4)
    expect(second.reduce((sum, n) => sum + n, 0)).toBe(8)
    expect(second.length).toBeLessThanOrEqual(3)
    expect(second.slice(0, -1).every((n) => n === 1)).toBe(true)
    expect(second[second.length - 1]).toBeGreaterThanOrEqual(6)
    expect(s.accepted.size).toBe(16)
  })
})

describe('compress: true', () => {
  const messages = (prefix: string) =>
    Array.from({ length: 1_500 }, (_, i) => ({
      ...trackMessage(`${prefix}${i}`, { text: 'compressible text '.repeat(60), n: i, emoji: 'ünïcødé ✓ 😀' }),
      timestamp: '2024-05-01T10:00:00.000Z',
    }))

  it('sends gzip bodies (Content-Encoding: gzip) that decode to the same JSON as without compression', async () => {
    const gz = await server()
    const plain = await server()
    const zipped = client(gz, { compress: true, maxInFlight: 1 })
    const unzipped = client(plain, { compress: false, maxInFlight: 1 })
    for (const m of messages('m')) zipped.track(m)
    for (const m of messages('m')) unzipped.track(m)
    await Promise.all([zipped.flush(), unzipped.flush()])

    expect(gz.requests.length).toBeGreaterThan(1)
    for (const r of gz.requests) {
      expect(r.headers['content-encoding']).toBe('gzip')
      expect(r.headers['content-type']).toBe('application/json')
      expect([...r.raw.subarray(0, 2)]).toEqual([0x1f, 0x8b])
      const decoded = gunzipSync(r.raw).toString('utf8')
      expect(decoded).toBe(r.text)
      expect(JSON.parse(decoded)).toEqual(r.body)
    }
    const rawTotal = gz.requests.reduce((sum, r) => sum + r.raw.length, 0)
    const textTotal = gz.requests.reduce((sum, r) => sum + Buffer.byteLength(r.text), 0)
    expect(rawTotal).toBeLessThan(textTotal / 5)
    for (const r of plain.requests) expect(r.headers['content-encoding']).toBeUndefined()
    // The same messages, byte for byte once parsed, in the same order.
    expect(gz.acceptedMessages).toEqual(plain.acceptedMessages)
    expect(gz.acceptedMessages).toHaveLength(1_500)
  })

  it('applies the 500 KB limit to the uncompressed body and reports uncompressed bytes', async () => {
    const gz = await server()
    const analytics = client(gz, { compress: true, maxInFlight: 1 })
    const flushes: FlushInfo[] = []
    analytics.on('flush', (info) => flushes.push(info))
    for (const m of messages('m')) analytics.track(m)
    await analytics.flush()

    const decodedSizes = gz.requests.map((r) => Buffer.byteLength(r.text))
    expect(Math.max(...decodedSizes)).toBeLessThanOrEqual(MAX_BATCH_BYTES)
    // Batches are filled up to the limit of the uncompressed body (not of the far smaller gzip).
    expect(decodedSizes.filter((n) => n > MAX_BATCH_BYTES - 2_000).length).toBeGreaterThan(0)
    expect(flushes.map((f) => f.bytes)).toEqual(decodedSizes)
    expect(gz.accepted.size).toBe(1_500)
  })

  it('retries a gzip body with the same compressed content', async () => {
    const gz = await server((index) => (index < 2 ? { kind: 'status', status: 503 } : { kind: 'status', status: 200 }))
    const analytics = client(gz, { compress: true, flushAt: 1 })
    analytics.track(trackMessage('m0'))
    await analytics.flush()
    expect(gz.requests).toHaveLength(3)
    expect(new Set(gz.requests.map((r) => r.text)).size).toBe(1)
    expect(gz.accepted.get('m0')).toBe(1)
  })
})
