import * as http from 'node:http'
import { BaselineClient, ENVELOPE_BYTES, MAX_BATCH_BYTES, buildBody, destroyAgent, nextBatchCount } from '../../bench/lib/baseline.cjs'
import { createSink } from '../../bench/lib/sink.cjs'

interface Received {
  path: string
  authorization: string | undefined
  bytes: number
  body: { batch: Array<Record<string, any>>; sentAt: string }
}

/** A recording server: every request's path, auth, size and parsed body; answers 200. */
async function startRecorder(): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      received.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        bytes: raw.length,
        body: JSON.parse(raw.toString('utf8')),
      })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as import('node:net').AddressInfo
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const event = (i: number, properties: object = { i }) => ({ userId: `u${i}`, event: 'Order Completed', properties })

afterEach(() => destroyAgent())

describe('the bench baseline client', () => {
  it('sends the enriched event, serialized once, to /v1/batch with Basic auth', async () => {
    const server = await startRecorder()
    try {
      const client = new BaselineClient('write-key', { host: `http://127.0.0.1:${server.port}` })
      client.track(event(1, { total: 42 }))
      await client.flush()
      expect(server.received).toHaveLength(1)
      const [request] = server.received
      expect(request.path).toBe('/v1/batch')
      expect(request.authorization).toBe('Basic ' + Buffer.from('write-key:').toString('base64'))
      expect(Date.parse(request.body.sentAt)).not.toBeNaN()
      const [sent] = request.body.batch
      expect(sent).toEqual({
        userId: 'u1',
        event: 'Order Completed',
        properties: { total: 42 },
        type: 'track',
        messageId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        context: { library: { name: 'baseline', version: '1.0.0' } },
      })
    } finally {
      await server.close()
    }
  })

  it('delivers every one of 5,000 events of ~1.5 KB exactly once, in requests of at most 500 KB', async () => {
    const sink = createSink()
    const port = await sink.listen(0)
    try {
      const client = new BaselineClient('k', { host: `http://127.0.0.1:${port}`, flushAt: 100_000 })
      for (let i = 0; i < 5000; i++) client.track(event(i, { text: 'é'.repeat(700) }))
      await client.flush()
      const s = sink.stats()
      expect(s.unique).toBe(5000)
      expect(s.duplicates).toBe(0)
      expect(s.refused).toBe(0)
      expect(s.largestRequest).toBeLessThanOrEqual(MAX_BATCH_BYTES)
      // as few requests as fit: each but the last is full to within one event (~1.6 KB)
      expect(s.requests).toBeLessThanOrEqual(Math.ceil(s.bytes / (MAX_BATCH_BYTES - 2000)))
      expect(client.stats()).toMatchObject({ sent: 5000, failed: 0, queued: 0, inFlight: 0 })
    } finally {
      await sink.close()
    }
  })

  it('sends a batch when flushAt events are queued, once the caller yields, without waiting for flush()', async () => {
    const server = await startRecorder()
    try {
      const client = new BaselineClient('k', { host: `http://127.0.0.1:${server.port}`, flushAt: 3 })
      for (let i = 0; i < 3; i++) client.track(event(i))
      expect(client.stats()).toMatchObject({ queued: 3, inFlight: 0 })
      await Promise.resolve()
      expect(client.stats()).toMatchObject({ queued: 0, inFlight: 1 })
      await client.flush()
      expect(server.received.map((r) => r.body.batch.length)).toEqual([3])
    } finally {
      await server.close()
    }
  })

  it('refuses an event over 32 KB and never sends it', async () => {
    const sink = createSink({ checkEvents: true })
    const port = await sink.listen(0)
    try {
      const client = new BaselineClient('k', { host: `http://127.0.0.1:${port}` })
      client.track(event(1, { text: 'x'.repeat(33 * 1024) }))
      client.track(event(2, { text: 'x'.repeat(31 * 1024) }))
      await client.flush()
      expect(client.stats()).toMatchObject({ refused: 1, sent: 1 })
      expect(sink.stats()).toMatchObject({ unique: 1, oversizeEventsReceived: 0 })
    } finally {
      await sink.close()
    }
  })

  it('keeps at most maxInFlight (4) requests in flight and delivers the rest once they are answered', async () => {
    const sink = createSink()
    const port = await sink.listen(0)
    try {
      sink.pause()
      const client = new BaselineClient('k', { host: `http://127.0.0.1:${port}`, flushAt: 1 })
      for (let i = 0; i < 20; i++) {
        client.track(event(i))
        await Promise.resolve() // each its own request
      }
      const done = client.flush()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(client.stats().inFlight).toBe(4)
      expect(sink.stats().held).toBe(4)
      sink.resume()
      await done
      expect(sink.stats()).toMatchObject({ unique: 20, duplicates: 0 })
      expect(sink.stats().peakSockets).toBeLessThanOrEqual(4)
    } finally {
      await sink.close()
    }
  })

  it('holds no timer once idle', async () => {
    const server = await startRecorder()
    try {
      const client = new BaselineClient('k', { host: `http://127.0.0.1:${server.port}` })
      client.track(event(1))
      expect(client.timer).toBeDefined()
      expect(client.timer?.hasRef()).toBe(false)
      await client.flush()
      expect(client.timer).toBeUndefined()
    } finally {
      await server.close()
    }
  })
})

describe('nextBatchCount and buildBody', () => {
  it('fill a body to the byte exactly and not one byte more', () => {
    const texts = ['{"a":1}', '{"bb":22}', '{"ccc":333}']
    const bytes = texts.map((t) => Buffer.byteLength(t))
    const exact = ENVELOPE_BYTES + bytes[0] + bytes[1] + bytes[2] + 2
    expect(nextBatchCount(bytes, 0, 3, exact)).toBe(3)
    expect(nextBatchCount(bytes, 0, 3, exact - 1)).toBe(2)
    expect(nextBatchCount(bytes, 1, 3, exact)).toBe(2)
    expect(nextBatchCount(bytes, 3, 3, exact)).toBe(0)
    expect(Buffer.byteLength(buildBody(texts, new Date().toISOString()))).toBe(exact)
  })

  it('send an event bigger than the limit alone rather than never', () => {
    expect(nextBatchCount([600_000, 10], 0, 2, MAX_BATCH_BYTES)).toBe(1)
  })

  it('build a body that parses back to the events', () => {
    const body = buildBody(['{"a":1}', '{"b":2}'], '2026-01-01T00:00:00.000Z')
    expect(JSON.parse(body)).toEqual({ batch: [{ a: 1 }, { b: 2 }], sentAt: '2026-01-01T00:00:00.000Z' })
  })
})
