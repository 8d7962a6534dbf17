import * as http from 'node:http'
import { createSink, type Sink } from '../../bench/lib/sink.cjs'
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { faultPlan } = require('../../bench/lib/sink-faults.cjs') as {
  faultPlan: (rate: number) => (index: number) => { kind: string; status?: number }
}

const AUTH = 'Basic ' + Buffer.from('key:').toString('base64')

function post(
  port: number,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = { Authorization: AUTH },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', ...headers } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

function batch(ids: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ batch: ids.map((messageId) => ({ type: 'track', event: 'E', userId: 'u', messageId, ...extra })) })
}

/** A `/v1/batch` body of exactly `bytes` bytes holding one event. */
function bodyOfBytes(bytes: number): string {
  const empty = JSON.stringify({ batch: [{ type: 'track', event: 'E', userId: 'u', messageId: 'm', p: '' }] })
  return empty.replace('"p":""', `"p":"${'x'.repeat(bytes - empty.length)}"`)
}

describe('the bench sink', () => {
  let sink: Sink
  let port: number

  beforeEach(async () => {
    sink = createSink()
    port = await sink.listen(0)
  })

  afterEach(() => sink.close())

  it('accepts batches and counts unique messageIds, duplicates, requests and bytes', async () => {
    const first = batch(['a', 'b', 'c'])
    expect(await post(port, '/v1/batch', first)).toBe(200)
    expect(await post(port, '/v1/batch', batch(['c', 'd']))).toBe(200)
    const s = sink.stats()
    expect(s).toMatchObject({ requests: 2, accepted: 2, events: 5, unique: 4, duplicates: 1 })
    expect(s.bytes).toBe(Buffer.byteLength(first) + Buffer.byteLength(batch(['c', 'd'])))
    expect(s.byEvent).toEqual({ E: 4 })
  })

  it('accepts a body of exactly 500 KB and refuses one byte more with 400, counting none of its events', async () => {
    expect(await post(port, '/v1/batch', bodyOfBytes(500 * 1024))).toBe(200)
    expect(await post(port, '/v1/batch', bodyOfBytes(500 * 1024 + 1).replace('"m"', '"n"'))).toBe(400)
    const s = sink.stats()
    expect(s).toMatchObject({ accepted: 1, refused: 1, refusedOversize: 1, unique: 1, largestRequest: 500 * 1024 + 1 })
  })

  it('answers 413 instead when told to', async () => {
    sink.reset({ oversizeStatus: 413 })
    expect(await post(port, '/v1/batch', bodyOfBytes(500 * 1024 + 1))).toBe(413)
  })

  it('counts multi-byte text in UTF-8 bytes', async () => {
    const body = bodyOfBytes(500 * 1024 - 300).replace('xxxxxxxxxx', 'éééééééééé') // 10 more bytes, same characters
    expect(await post(port, '/v1/batch', body)).toBe(200)
    expect(sink.stats().largestRequest).toBe(500 * 1024 - 290)
  })

  it('refuses a request without Basic auth and a body that is not JSON', async () => {
    expect(await post(port, '/v1/batch', batch(['a']), {})).toBe(401)
    expect(await post(port, '/v1/batch', '{"batch":[')).toBe(400)
    expect(await post(port, '/v1/batch', '{"nobatch":1}')).toBe(400)
    expect(sink.stats()).toMatchObject({ unauthorized: 1, refusedInvalidJson: 2, unique: 0 })
  })

  it('with checkEvents, refuses a batch holding an item over 32 KB and counts the item, even in a body over 500 KB', async () => {
    sink.reset({ checkEvents: true })
    const big = 'x'.repeat(33 * 1024)
    expect(await post(port, '/v1/batch', batch(['ok', 'big']).replace('"messageId":"big"', `"messageId":"big","p":"${big}"`))).toBe(400)
    const many = JSON.stringify({
      batch: Array.from({ length: 17 }, (_, i) => ({ messageId: `m${i}`, p: i === 0 ? big : 'x'.repeat(31 * 1024) })),
    })
    expect(await post(port, '/v1/batch', many)).toBe(400)
    expect(sink.stats()).toMatchObject({ refusedEventTooLarge: 1, refusedOversize: 1, oversizeEventsReceived: 2, unique: 0 })
  })

  it('holds requests while paused and answers them on resume', async () => {
    sink.pause()
    const answered: number[] = []
    const pending = [post(port, '/v1/batch', batch(['a'])), post(port, '/v1/batch', batch(['b']))].map((p) =>
      p.then((s) => answered.push(s)),
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(answered).toEqual([])
    expect(sink.stats().held).toBe(2)
    sink.resume()
    await Promise.all(pending)
    expect(answered).toEqual([200, 200])
    expect(sink.stats().unique).toBe(2)
  })

  it('counts connections and the most sockets open at once', async () => {
    await Promise.all([1, 2, 3].map((i) => post(port, '/v1/batch', batch([`s${i}`]))))
    const s = sink.stats()
    expect(s.connections).toBe(3)
    expect(s.peakSockets).toBeGreaterThanOrEqual(1)
    expect(s.peakSockets).toBeLessThanOrEqual(3)
  })

  it('forgets counts and messageIds on reset', async () => {
    await post(port, '/v1/batch', batch(['a']))
    sink.reset()
    await post(port, '/v1/batch', batch(['a']))
    expect(sink.stats()).toMatchObject({ requests: 1, unique: 1, duplicates: 0 })
  })

  it('holds answers for latencyMs and counts the most requests handled at once and the resent ones', async () => {
    sink.reset({ latencyMs: 30 })
    await Promise.all([1, 2, 3].map((i) => post(port, '/v1/batch', batch([`l${i}`]))))
    await post(port, '/v1/batch', batch(['l1']))
    expect(sink.stats()).toMatchObject({ requests: 4, peakInFlight: 3, resentRequests: 1, unique: 3 })
  })

  it('fails the planned share of requests in fault mode, the same way after every reset', async () => {
    const plan = faultPlan(0.5)
    const expected = Array.from({ length: 30 }, (_, i) => plan(i)).map((f) =>
      f.kind === 'ok' ? '200' : f.kind === 'status' ? String(f.status) : f.kind,
    )
    expect(expected.filter((kind) => kind !== '200').length).toBeGreaterThan(5)
    for (let round = 0; round < 2; round++) {
      sink.reset({ faultRate: 0.5 })
      const seen: string[] = []
      for (let i = 0; i < 30; i++) {
        const sent = post(port, '/v1/batch', batch([`f${round}-${i}`])).then(String, () => 'reset')
        seen.push(await Promise.race([sent, new Promise<string>((resolve) => setTimeout(() => resolve('hang'), 300))]))
      }
      expect(seen).toEqual(expected)
      expect(sink.stats().faults).toBe(expected.filter((kind) => kind !== '200').length)
    }
  })
})
