import type { TestServer } from '../helpers/test-server'
import {
  acceptedMessages,
  acceptedWithin,
  packedApp,
  runScenario,
  startEdgeHost,
  startSink,
  writeKeyOf,
  type EdgeHost,
} from './helpers/edge-host'

// Cloudflare Workers: the packed package, bundled as wrangler would (esbuild, platform browser,
// conditions workerd/worker/browser, no Node built-in left external), run in workerd through
// Miniflare against a sink on 127.0.0.1 (Miniflare lets workerd reach private and loopback
// addresses). Three compatibility settings, chosen for what the host lacks:
// - 2026-04-20 with nodejs_compat: process, Buffer, node:zlib, node:http, process.on and
//   Timeout.unref all exist (unref from 2026-02-10, process.on from 2025-09-15, node:http from
//   2025-08-15); the runtime says it is workerd, so the default transport is the global fetch.
// - 2026-04-20 without nodejs_compat: no process, no Buffer, no node: module; timers are numbers.
// - 2025-06-01 with nodejs_compat: process and Buffer, but no process.on, no unref, no node:http.
const CONFIGS = [
  { name: 'nodejs_compat, 2026-04-20', date: '2026-04-20', flags: 'nodejs_compat' },
  { name: 'without nodejs_compat, 2026-04-20', date: '2026-04-20', flags: '' },
  { name: 'nodejs_compat, 2025-06-01 (no process.on, no unref, no node:http)', date: '2025-06-01', flags: 'nodejs_compat' },
]
const TEST_TIMEOUT_MS = 30_000

let app: { app: string; remove: () => void }
beforeAll(() => {
  app = packedApp()
}, 120_000)
afterAll(() => app?.remove())

describe.each(CONFIGS)('Cloudflare Workers (workerd 1.20260426, $name)', ({ name, date, flags }) => {
  let host: EdgeHost
  let sink: TestServer
  beforeAll(async () => {
    sink = await startSink()
    host = await startEdgeHost(app.app, 'worker.mjs', 'workerd', date, flags)
  }, 60_000)
  afterAll(async () => {
    await host?.stop()
    await sink?.close()
  }, 20_000)

  const scenario = (path: string, id: string | number = 0) => runScenario(host, path, sink, id, name)

  it(
    'sends with the default transport (no fetch option): identify, track and alias arrive',
    async () => {
      const answer = await scenario('default-transport')
      expect(answer).toEqual({ status: 200, body: { ok: true } })
      const messages = acceptedMessages(sink, 'DEFAULT_TRANSPORT')
      expect(messages.map((m) => m.type).sort()).toEqual(['alias', 'identify', 'track'])
      const [request] = sink.requests.filter((r) => writeKeyOf(r) === 'DEFAULT_TRANSPORT')
      expect(request.headers['user-agent']).toMatch(/^eventrail\/\d+\.\d+\.\d+.* \(workerd\)$/)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'sends with `fetch: globalThis.fetch`, the form the README shows: 5 of 5 arrive',
    async () => {
      expect(await scenario('global-fetch')).toEqual({ status: 200, body: { ok: true } })
      // Requests run side by side: the order of arrival is not the order of the calls.
      expect(
        acceptedMessages(sink, 'GLOBAL_FETCH')
          .map((m) => m.properties.i)
          .sort(),
      ).toEqual([0, 1, 2, 3, 4])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'gzips with compress: true',
    async () => {
      expect(await scenario('gzip')).toEqual({ status: 200, body: { ok: true } })
      const requests = sink.requests.filter((r) => writeKeyOf(r) === 'GZIP')
      expect(requests.map((r) => r.headers['content-encoding'])).toEqual(['gzip'])
      expect(acceptedMessages(sink, 'GZIP').map((m) => m.properties.text)).toEqual(['é'.repeat(3_000)])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'runs importMessages() inside the bundle: its engine is bundled and loaded on the first call',
    async () => {
      expect(await scenario('import')).toEqual({ status: 200, body: { ok: true, sent: 3, failed: 0 } })
      expect(
        acceptedMessages(sink, 'IMPORT')
          .map((m) => m.properties.i)
          .sort(),
      ).toEqual([1, 2, 3])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'records with eventrail/testing inside the runtime, gzip included',
    async () => {
      expect(await scenario('recorder')).toEqual({ status: 200, body: { ok: true, tracks: 1, aliases: 1, text: 'é'.repeat(100) } })
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'refuses the spool option with a ValidationError naming it (no disk outlives the request)',
    async () => {
      const { status, body } = await scenario('spool-refused')
      expect({ status, ok: body.ok, name: body.name, field: body.field }).toEqual({
        status: 200,
        ok: true,
        name: 'ValidationError',
        field: 'spool',
      })
      expect(body.message).toContain('workerd')
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'retries after a 503: the message arrives once',
    async () => {
      expect(await scenario('retry')).toEqual({ status: 200, body: { ok: true } })
      const statuses = sink.requests.filter((r) => writeKeyOf(r) === 'RETRY').map((r) => (r as { status?: number }).status)
      expect(statuses).toEqual([503, 200])
      expect(acceptedMessages(sink, 'RETRY').map((m) => m.event)).toEqual(['Retried'])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'with `waitUntil: (p) => ctx.waitUntil(p)`, a handler that returns without awaiting loses nothing',
    async () => {
      expect(await scenario('wait-until', 'w1')).toEqual({ status: 200, body: { ok: true } })
      const messages = await acceptedWithin(sink, 'WAIT_UNTIL', 2)
      // The first message goes at once (rule 1), the second in the flush handed to waitUntil: two
      // requests in flight, which may arrive in either order.
      expect(messages.map((m) => [m.event, m.properties.second ?? false]).sort()).toEqual([
        ['Wait Until', false],
        ['Wait Until', true],
      ])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    "a module-scope client (waitUntil from 'cloudflare:workers') serves sequential and concurrent requests",
    async () => {
      const answers = []
      for (const id of ['s1', 's2', 's3']) answers.push(await scenario('module-scope', id))
      answers.push(...(await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => scenario('module-scope', id)))))
      answers.push(await scenario('module-scope', 's4'))
      expect(answers).toEqual(Array.from({ length: 9 }, () => ({ status: 200, body: { ok: true } })))
      const ids = (await acceptedWithin(sink, 'MODULE_SCOPE', 9)).map((m) => m.properties.id)
      expect(ids.sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 's1', 's2', 's3', 's4'])
    },
    TEST_TIMEOUT_MS,
  )
  it(
    'eventrail/context: with nodejs_compat, 20 concurrent requests each keep their own identity; without it, a clear error',
    async () => {
      const answer = await scenario('context')
      if (flags.includes('nodejs_compat')) {
        // Each message carries its own request's anonymous id (from the ajs cookie) and ip.
        expect(answer).toEqual({ status: 200, body: { ok: true } })
        const mine = (await acceptedWithin(sink, 'CONTEXT', 20)).filter((m) => m.properties.runtime === name)
        expect(mine).toHaveLength(20)
        expect(mine.filter((m) => m.anonymousId !== m.properties.expected)).toEqual([])
        expect(mine.filter((m) => m.context.ip !== `192.0.2.${String(m.properties.expected).slice('edge-anon-'.length)}`)).toEqual([])
      } else {
        expect(answer.body).toMatchObject({ ok: false, name: 'EventrailError', message: expect.stringMatching(/no AsyncLocalStorage/) })
      }
    },
    TEST_TIMEOUT_MS,
  )
})
