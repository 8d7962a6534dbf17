import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Analytics } from 'eventrail'
import { inContext, withContext, type ContextAnalytics } from 'eventrail/context'
import { startTestServer, type TestServer } from '../helpers/test-server'

// Issue 33: "It must never mix requests: a test with 1,000 concurrent requests of different users,
// interleaved across awaits, timers and streams, checks every message's identity."
const REQUESTS = 1000
const PER_REQUEST = 6

let collector: TestServer
let app: http.Server
let analytics: Analytics
let tracked: ContextAnalytics
let appUrl: string

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  collector = await startTestServer()
  analytics = new Analytics('KEY', { host: collector.url, flushAt: 200, flushInterval: 50, maxQueueSize: 20_000 })
  tracked = inContext(analytics)
  app = http.createServer((req, res) => {
    const user = String(req.headers['x-user'])
    const n = Number(user.slice(1))
    withContext(analytics, { userId: user, anonymousId: `anon-${user}`, context: { requestId: `req-${user}` } }, async () => {
      const mine = { expected: user }
      tracked.track({ event: 'Started', properties: mine })
      await tick(n % 7)
      tracked.page({ name: 'After await', properties: mine })
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          tracked.track({ event: 'In timer', properties: mine })
          resolve()
        }, n % 5),
      )
      // A stream whose chunks arrive on later turns, interleaved with the other requests' streams.
      const through = new PassThrough({ objectMode: true })
      through.on('data', () => tracked.track({ event: 'Chunk', properties: mine }))
      await pipeline(
        Readable.from(
          (async function* () {
            yield 1
            await tick(n % 3)
            yield 2
          })(),
        ),
        through,
      )
      const outcome = await tracked.deliver.identify({ traits: { expected: user } })
      res.end(JSON.stringify(outcome.delivered))
    }).catch((err: unknown) => {
      res.statusCode = 500
      res.end(String(err))
    })
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
})

afterAll(async () => {
  await analytics?.closeAndFlush()
  await new Promise((resolve) => app?.close(resolve))
  await collector?.close()
})

it('1,000 concurrent requests of different users: every message carries its own request identity, none mixed', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 200 })
  const answers = await Promise.all(
    Array.from(
      { length: REQUESTS },
      (_, i) =>
        new Promise<string>((resolve, reject) => {
          http
            .get(`${appUrl}/`, { agent, headers: { 'x-user': `u${i}` } }, (res) => {
              let body = ''
              res.on('data', (c: Buffer) => (body += c.toString()))
              res.on('end', () => resolve(body))
            })
            .on('error', reject)
        }),
    ),
  )
  agent.destroy()
  expect(answers.filter((a) => a !== 'true')).toEqual([])
  await analytics.flush()
  const messages = collector.messages
  expect(messages).toHaveLength(REQUESTS * PER_REQUEST)
  const mixed = messages.filter((m) => {
    const expected = m.properties?.expected ?? m.traits?.expected
    return m.userId !== expected || m.anonymousId !== `anon-${expected}` || m.context.requestId !== `req-${expected}`
  })
  expect(mixed).toEqual([])
  expect(new Set(messages.map((m) => m.userId)).size).toBe(REQUESTS)
  const perUser = new Map<string, number>()
  for (const m of messages) perUser.set(m.userId, (perUser.get(m.userId) ?? 0) + 1)
  expect([...perUser.values()].every((count) => count === PER_REQUEST)).toBe(true)
  expect(analytics.stats().dropped).toBe(0)
})

it('outside any context, messages are unchanged', async () => {
  const before = collector.messages.length
  analytics.track({ userId: 'plain', event: 'Outside' })
  await analytics.flush()
  const [m] = collector.messages.slice(before)
  expect(m.userId).toBe('plain')
  expect(m.anonymousId).toBeUndefined()
  expect(Object.keys(m.context)).toEqual(['library'])
})
