import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Analytics, DeliveryError, MAX_BATCH_BYTES } from '../../src'
import { createCollector, type Collector } from '../../src/collector'
import { serveEachTest, type TestServer } from '../helpers/test-server'
import { aTrack, aTrackOfSize } from '../helpers/messages'

const run = promisify(execFile)
const ROOT = join(__dirname, '../..')
const FIXTURES = join(__dirname, 'fixtures')

let server: TestServer
serveEachTest((s) => (server = s))

describe('the client against the local collector', () => {
  let collector: Collector
  beforeEach(async () => {
    collector = await createCollector({ writeKeys: ['live-key', 'key-a', 'key-b'], destinations: ['Amplitude'] })
  })
  afterEach(() => collector.close())

  it('delivers every kind of message, each accepted by the collector', async () => {
    const analytics = new Analytics('live-key', { host: collector.url })
    analytics
      .identify({ userId: 'u1', traits: { email: 'ada@example.com' } })
      .track({ userId: 'u1', event: 'Signed Up', integrations: { Amplitude: false } })
      .page({ userId: 'u1', name: 'Home', category: 'Docs' })
      .screen({ anonymousId: 'a1', name: 'Settings' })
      .group({ userId: 'u1', groupId: 'g1', traits: { plan: 'pro' } })
      .alias({ previousId: 'a1', userId: 'u1' })
    await analytics.flush()
    const records = collector.messages
    expect(records.map((r) => r.type).sort()).toEqual(['alias', 'group', 'identify', 'page', 'screen', 'track'])
    for (const record of records) expect(record).toMatchObject({ verdict: 'accepted', writeKey: 'live-key' })
    expect(records.find((r) => r.type === 'track')?.destinations).toEqual([])
    expect(collector.requests.map((r) => r.status)).toEqual(collector.requests.map(() => 200))
    expect(collector.requests.filter((r) => r.path === '/v1/alias')).toHaveLength(1)
  })

  it('delivers 2,000 messages of ~3 KB complete and accepted, in requests all within 500 KB', async () => {
    const analytics = new Analytics('live-key', { host: collector.url, flushAt: 100 })
    let called = 0
    for (let i = 0; i < 2000; i++) analytics.track(aTrackOfSize(3 * 1024, { messageId: `m-${i}` }), () => (called += 1))
    await analytics.flush()
    const ids = collector.messages.filter((r) => r.verdict === 'accepted').map((r) => r.message.messageId)
    expect(new Set(ids).size).toBe(2000)
    expect(called).toBe(2000)
    for (const request of collector.requests) {
      expect(request.status).toBe(200)
      expect(request.bytes).toBeLessThanOrEqual(MAX_BATCH_BYTES)
    }
  })

  it('two instances with different write keys do not interfere', async () => {
    const a = new Analytics('key-a', { host: collector.url })
    const b = new Analytics('key-b', { host: collector.url, flushAt: 1 })
    for (let i = 0; i < 5; i++) {
      a.track(aTrack({ event: 'A' }))
      b.track(aTrack({ event: 'B' }))
    }
    await Promise.all([a.flush(), b.flush()])
    const events = (key: string) => collector.messages.filter((r) => r.writeKey === key).map((r) => r.message.event)
    expect(events('key-a')).toEqual(['A', 'A', 'A', 'A', 'A'])
    expect(events('key-b')).toEqual(['B', 'B', 'B', 'B', 'B'])
  })
})

describe('the client against a plain HTTP server', () => {
  it('sends Basic auth, JSON and a User-Agent on every request', async () => {
    const analytics = new Analytics('live-key', { host: server.url })
    analytics
      .identify({ userId: 'u1', traits: { email: 'ada@example.com' } })
      .track({ userId: 'u1', event: 'Signed Up' })
      .page({ userId: 'u1', name: 'Home' })
      .screen({ anonymousId: 'a1', name: 'Settings' })
      .group({ userId: 'u1', groupId: 'g1' })
      .alias({ previousId: 'a1', userId: 'u1' })
    await analytics.flush()
    expect(server.messages.map((m) => m.type).sort()).toEqual(['alias', 'group', 'identify', 'page', 'screen', 'track'])
    for (const request of server.requests) {
      expect(request.method).toBe('POST')
      expect(request.headers.authorization).toBe('Basic ' + Buffer.from('live-key:').toString('base64'))
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['user-agent']).toMatch(/^eventrail\/\d+\.\d+\.\d+/)
    }
    expect(server.requests.filter((r) => r.path === '/v1/alias')).toHaveLength(1)
  })

  it('refuses a 40 KB message and sends the rest', async () => {
    const analytics = new Analytics('k', { host: server.url })
    const errors: Error[] = []
    analytics.track(aTrackOfSize(40 * 1024), (err) => err && errors.push(err))
    analytics.track(aTrack())
    await analytics.flush()
    expect(errors).toHaveLength(1)
    expect(server.messages).toHaveLength(1)
  })

  it('a server that answers 500 causes no unhandled rejection, and flush reports it', async () => {
    server.respond = () => 500
    const analytics = new Analytics('k', { host: server.url, retryDelay: 1, maxRetries: 2 })
    analytics.track(aTrack())
    analytics.track(aTrack())
    await new Promise((resolve) => setTimeout(resolve, 100))
    const error = await analytics.flush().catch((err: unknown) => err)
    expect(error).toBeInstanceOf(DeliveryError)
    expect((error as DeliveryError).status).toBe(500)
    expect(server.requests.length).toBe(6)
    expect(analytics.stats()).toMatchObject({ failed: 2, sent: 0 })
  })

  it('retries a 503 and delivers with the same messageId', async () => {
    server.respond = (_request, index) => (index < 2 ? 503 : 200)
    const analytics = new Analytics('k', { host: server.url, retryDelay: 1 })
    const cb = jest.fn()
    analytics.track(aTrack(), cb)
    await analytics.flush()
    expect(server.requests).toHaveLength(3)
    const ids = server.requests.map((r) => r.body.batch[0].messageId)
    expect(new Set(ids).size).toBe(1)
    expect(cb).toHaveBeenCalledWith(undefined, expect.any(Array))
  })
})

describe('the built package', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/index.js')) || !existsSync(join(ROOT, 'dist/index.cjs'))) {
      throw new Error('dist/ is missing: run `npm run build` (npm test does it first)')
    }
  })

  it('sends a message from an .mjs file that imports it', async () => {
    await run(process.execPath, [join(FIXTURES, 'send.mjs'), server.url], { cwd: ROOT })
    expect(server.messages).toEqual([expect.objectContaining({ event: 'From ESM', userId: 'esm-user' })])
  })

  it('sends a message from a .cjs file that requires it', async () => {
    await run(process.execPath, [join(FIXTURES, 'send.cjs'), server.url], { cwd: ROOT })
    expect(server.messages).toEqual([expect.objectContaining({ event: 'From CJS', userId: 'cjs-user' })])
  })

  it('delivers what a script queued and never flushed when its event loop runs dry', async () => {
    await run(process.execPath, [join(FIXTURES, 'forget-flush.cjs'), server.url, '300'], { cwd: ROOT })
    expect(server.messages).toHaveLength(300)
  })

  it('loses nothing when a handler awaits flush() and exits at once, with flushAt 1', async () => {
    await run(process.execPath, [join(FIXTURES, 'serverless.cjs'), server.url], { cwd: ROOT })
    expect(server.messages).toHaveLength(100)
  })
})
