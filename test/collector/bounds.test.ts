import * as http from 'node:http'
import { createCollector, type Collector } from '../../src/collector'
import { runDev } from '../../src/collector/dev'
import { post } from './helpers'

let collector: Collector
// A collector whose --out failed rejects its close() with that failure: not what these tests check.
afterEach(() => collector.close().catch(() => undefined))

it('keeps at most maxMessages, the newest, cutting the oldest eighth at once past the bound', async () => {
  collector = await createCollector({ port: 0, maxMessages: 80 })
  const batch = Array.from({ length: 100 }, (_, i) => ({ type: 'track', userId: 'u', event: `e${i}` }))
  expect((await post(collector.url, '/v1/batch', { batch })).status).toBe(200)
  const kept = collector.messages
  expect(kept.length).toBeLessThanOrEqual(80)
  expect(kept.length).toBeGreaterThanOrEqual(70)
  expect(kept.map((r) => r.message.event)).toEqual(Array.from({ length: kept.length }, (_, i) => `e${100 - kept.length + i}`))
})

describe('deep nesting', () => {
  const deep = (levels: number): string =>
    '{"userId":"u","event":"Deep","properties":' + '{"a":'.repeat(levels) + '1' + '}'.repeat(levels) + '}'

  it('refuses a body nesting deeper than 100 levels with 400, before storing it, and keeps serving the API', async () => {
    collector = await createCollector({ port: 0 })
    const answer = await post(collector.url, '/v1/track', deep(3000))
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('the body nests deeper than 100 levels of objects and arrays')
    expect(collector.messages).toHaveLength(0)
    expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'Next' })).status).toBe(200)
    const api = await fetch(`${collector.url}/api/messages`)
    expect(api.status).toBe(200)
    expect(((await api.json()) as { messages: unknown[] }).messages).toHaveLength(1)
  })

  it('takes 98 levels inside a message, and counts brackets inside strings as text', async () => {
    collector = await createCollector({ port: 0 })
    expect((await post(collector.url, '/v1/track', deep(98))).status).toBe(200)
    const text = JSON.stringify({ userId: 'u', event: '{'.repeat(500) + '"\\"[[[' })
    expect((await post(collector.url, '/v1/track', text)).status).toBe(200)
    expect(collector.messages).toHaveLength(2)
  })
})

describe('the live feed', () => {
  /** Opens /events and collects what arrives until `ms` have passed or the server cuts it. */
  function openFeed(url: string, ms: number): Promise<{ bytes: number; cut: boolean }> {
    return new Promise((resolve) => {
      const req = http.get(`${url}/events`, (res) => {
        let bytes = 0
        let cut = false
        const timer = setTimeout(() => {
          res.destroy()
          resolve({ bytes, cut })
        }, ms)
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('close', () => {
          cut = true
        })
        res.on('error', () => undefined)
        res.on('end', () => {
          clearTimeout(timer)
          resolve({ bytes, cut: true })
        })
      })
      req.on('error', () => resolve({ bytes: 0, cut: true }))
    })
  }

  it('sends a connecting page at most 2 MB of backlog, however large the records', async () => {
    collector = await createCollector({ port: 0 })
    const big = { userId: 'u', event: 'Big', properties: { pad: 'x'.repeat(30_000) } }
    for (let i = 0; i < 100; i++) await post(collector.url, '/v1/track', big)
    const feed = await openFeed(collector.url, 1500)
    expect(feed.bytes).toBeGreaterThan(1_000_000)
    expect(feed.bytes).toBeLessThanOrEqual(2 * 1024 * 1024 + 100)
  })

  it('feeds at most 4 pages at once: a fifth cuts the oldest', async () => {
    collector = await createCollector({ port: 0 })
    // Each stream: resolves `opened` on its first bytes, and `closed` when the server ends it.
    const open = () => {
      let opened!: () => void
      let closed!: () => void
      const stream = {
        isClosed: false,
        opened: new Promise<void>((r) => (opened = r)),
        closed: new Promise<void>((r) => (closed = r)),
        req: undefined as http.ClientRequest | undefined,
      }
      stream.req = http.get(`${collector.url}/events`, (res) => {
        res.once('data', () => opened())
        res.on('error', () => undefined)
        res.on('close', () => {
          stream.isClosed = true
          closed()
        })
      })
      stream.req.on('error', () => undefined)
      return stream
    }
    const streams = [open()]
    await streams[0].opened
    for (let i = 0; i < 4; i++) {
      streams.push(open())
      await streams[streams.length - 1].opened
    }
    await streams[0].closed
    expect(streams.map((s) => s.isClosed)).toEqual([true, false, false, false, false])
    for (const s of streams) s.req?.destroy()
  })
})

describe('--out on a full disk', () => {
  it('reports the failure at once (error event, stderr of eventrail dev, the live feed)', async () => {
    const errors: Error[] = []
    const printed: string[] = []
    collector = await runDev({ port: 0, out: '/dev/full' }, true, {
      write: () => undefined,
      error: (text) => printed.push(text),
      color: false,
    })
    collector.on('error', (err) => errors.push(err))
    expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'E' })).status).toBe(200)
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => errors.length > 0 && (clearInterval(poll), resolve()), 10)
    })
    expect(errors[0].message).toMatch(/^the --out file cannot be written \(ENOSPC/)
    expect(printed[0]).toMatch(/^eventrail: the --out file cannot be written \(ENOSPC/)
    const feed = await new Promise<string>((resolve) => {
      http.get(`${collector.url}/events`, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString()
          if (text.includes('event: warning')) {
            res.destroy()
            resolve(text)
          }
        })
      })
    })
    expect(feed).toMatch(/event: warning\ndata: \{"message":"the --out file cannot be written \(ENOSPC/)
    await expect(collector.close()).rejects.toThrow(/ENOSPC/)
  })
})

describe('hostile batches', () => {
  it('turns 80,000 empty items into 101 records, not 80,000', async () => {
    collector = await createCollector({ port: 0 })
    const body = JSON.stringify({ batch: Array.from({ length: 80_000 }, () => ({})) })
    expect((await post(collector.url, '/v1/batch', body)).status).toBe(200)
    expect(collector.messages).toHaveLength(101)
    expect(collector.messages[100].reason).toBe(
      'batch: 79900 more items that cannot be messages (not objects, or empty) were left out, not recorded one by one',
    )
  })

  it('refuses with 400 a batch whose context, merged into its items, puts them over 32 KB', async () => {
    collector = await createCollector({ port: 0 })
    const body = {
      context: { pad: 'x'.repeat(250_000) },
      batch: Array.from({ length: 1000 }, () => ({ type: 'track', userId: 'u', event: 'E' })),
    }
    const answer = await post(collector.url, '/v1/batch', body)
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatch(/^the batch's context and integrations are \d+ bytes: merged into each item/)
    expect(collector.messages).toHaveLength(0)
  })

  it('refuses with 400 a batch whose envelope, repeated into every item, would stand for over 4 MiB', async () => {
    collector = await createCollector({ port: 0 })
    const item = { type: 'track', userId: 'u', event: 'E' }
    const body = { context: { pad: 'x'.repeat(20_000) }, batch: Array.from({ length: 10_000 }, () => item) }
    const text = JSON.stringify(body)
    expect(text.length).toBeLessThan(500 * 1024)
    const answer = await post(collector.url, '/v1/batch', text)
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatch(
      /^the batch's 10000 items total \d+ bytes with the batch's context and integrations merged into each, over the limit of 4194304 bytes \(4 MiB\) per batch$/,
    )
    expect(collector.messages).toHaveLength(0)
    expect(collector.requests[0]).toMatchObject({ status: 400, messages: 0 })

    // The same envelope over fewer items is an ordinary batch, stored whole.
    const fewer = await post(collector.url, '/v1/batch', { ...body, batch: body.batch.slice(0, 150) })
    expect(fewer.status).toBe(200)
    expect(collector.messages).toHaveLength(150)
    expect(collector.messages[149].message.context).toMatchObject({ pad: body.context.pad })
  })
})

it('keeps at most maxMessageBytes of message JSON, the newest', async () => {
  collector = await createCollector({ port: 0, maxMessageBytes: 10_000 })
  for (let i = 0; i < 40; i++) await post(collector.url, '/v1/track', { userId: 'u', event: `e${i}`, properties: { pad: 'x'.repeat(900) } })
  const kept = collector.messages
  const bytes = kept.reduce((sum, r) => sum + JSON.stringify(r.message).length, 0)
  expect(bytes).toBeLessThanOrEqual(10_000)
  expect(kept.length).toBeGreaterThanOrEqual(7)
  expect(kept[kept.length - 1].message.event).toBe('e39')
  expect(kept.map((r) => r.id)).toEqual(Array.from({ length: kept.length }, (_, i) => 41 - kept.length + i))
})
