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

// Vercel Edge Functions and Next.js middleware: the packed package, bundled as Next.js or the
// Vercel CLI would (esbuild, platform browser, conditions edge-light/worker/browser), run in Vercel's
// Edge Runtime (the edge-runtime package 4.0.1) against a sink on 127.0.0.1. The Edge Runtime has
// no process, no Buffer, no node: module, no CompressionStream, and timers without unref.
const TEST_TIMEOUT_MS = 30_000
const RUNTIME = 'edge-runtime 4.0.1'

let app: { app: string; remove: () => void }
let host: EdgeHost
let sink: TestServer
beforeAll(async () => {
  app = packedApp()
  sink = await startSink()
  host = await startEdgeHost(app.app, 'edge-function.mjs', 'edge-runtime')
}, 120_000)
afterAll(async () => {
  await host?.stop()
  await sink?.close()
  app?.remove()
}, 20_000)

const scenario = (path: string, id: string | number = 0) => runScenario(host, path, sink, id, RUNTIME)

describe(`Vercel Edge (${RUNTIME})`, () => {
  it(
    'sends with the default transport (no fetch option): identify, track and alias arrive',
    async () => {
      expect(await scenario('default-transport')).toEqual({ status: 200, body: { ok: true } })
      expect(
        acceptedMessages(sink, 'DEFAULT_TRANSPORT')
          .map((m) => m.type)
          .sort(),
      ).toEqual(['alias', 'identify', 'track'])
      const [request] = sink.requests.filter((r) => writeKeyOf(r) === 'DEFAULT_TRANSPORT')
      expect(request.headers['user-agent']).toMatch(/^eventrail\/\d+\.\d+\.\d+.* \(edge-runtime\)$/)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'sends with `fetch: globalThis.fetch`: 5 of 5 arrive',
    async () => {
      expect(await scenario('global-fetch')).toEqual({ status: 200, body: { ok: true } })
      expect(
        acceptedMessages(sink, 'GLOBAL_FETCH')
          .map((m) => m.properties.i)
          .sort(),
      ).toEqual([0, 1, 2, 3, 4])
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'with compress: true and no gzip in the runtime, sends the body uncompressed, without Content-Encoding',
    async () => {
      expect(await scenario('gzip')).toEqual({ status: 200, body: { ok: true } })
      const requests = sink.requests.filter((r) => writeKeyOf(r) === 'GZIP')
      expect(requests.map((r) => r.headers['content-encoding'])).toEqual([undefined])
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
      expect(body.message).toContain('edge-runtime')
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
    'with `waitUntil: (p) => event.waitUntil(p)`, a handler that returns without awaiting loses nothing',
    async () => {
      expect(await scenario('wait-until', 'w1')).toEqual({ status: 200, body: { ok: true } })
      const messages = await acceptedWithin(sink, 'WAIT_UNTIL', 2)
      // The first message goes at once (rule 1), the second in the flush handed to waitUntil: two
      // requests in flight, which may arrive in either order.
      expect(messages.map((m) => [m.event, m.properties.second ?? false]).sort()).toEqual([
        ['Wait Until', false],
        ['Wait Until', true],
      ])
      // The Edge Runtime of the package keeps background work alive anyway (it is Node underneath):
      // what shows that the client did its part is what it handed to waitUntil.
      const handed = await scenario('handed')
      expect(handed.body).toEqual({ ok: true, handed: expect.any(Number), fulfilled: handed.body.handed })
      expect(handed.body.handed).toBeGreaterThanOrEqual(1)
    },
    TEST_TIMEOUT_MS,
  )

  it(
    'a module-scope client serves sequential and concurrent requests, each awaiting its message with deliver.track',
    async () => {
      const answers = []
      for (const id of ['s1', 's2', 's3']) answers.push(await scenario('module-scope', id))
      answers.push(...(await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => scenario('module-scope', id)))))
      for (const answer of answers) {
        expect(answer).toEqual({ status: 200, body: { ok: true, outcome: { delivered: true, messageId: expect.any(String) } } })
      }
      const ids = acceptedMessages(sink, 'MODULE_SCOPE').map((m) => m.properties.id)
      expect(ids.sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 's1', 's2', 's3'])
      const outcomeIds = answers.map((a) => a.body.outcome?.messageId).sort()
      expect(outcomeIds).toEqual(
        acceptedMessages(sink, 'MODULE_SCOPE')
          .map((m) => m.messageId)
          .sort(),
      )
    },
    TEST_TIMEOUT_MS,
  )
  it(
    'eventrail/context: the Edge Runtime package has no AsyncLocalStorage, and withContext says so',
    async () => {
      const answer = await scenario('context')
      expect(answer.body).toMatchObject({ ok: false, name: 'EventrailError', message: expect.stringMatching(/no AsyncLocalStorage/) })
    },
    TEST_TIMEOUT_MS,
  )
  it(
    "eventrail/context: with the global AsyncLocalStorage Vercel's platform gives edge functions, 20 concurrent requests each keep their own identity",
    async () => {
      const withStorage = await startEdgeHost(app.app, 'edge-function.mjs', 'edge-runtime', '', 'async-local-storage')
      try {
        const runtime = `${RUNTIME} + AsyncLocalStorage`
        expect(await runScenario(withStorage, 'context', sink, 0, runtime)).toEqual({ status: 200, body: { ok: true } })
        const mine = (await acceptedWithin(sink, 'CONTEXT', 20)).filter((m) => m.properties.runtime === runtime)
        expect(mine).toHaveLength(20)
        // Each message carries its own request's anonymous id (from the ajs cookie) and ip.
        expect(mine.filter((m) => m.anonymousId !== m.properties.expected)).toEqual([])
        expect(mine.filter((m) => m.context.ip !== `192.0.2.${String(m.properties.expected).slice('edge-anon-'.length)}`)).toEqual([])
      } finally {
        await withStorage.stop()
      }
    },
    TEST_TIMEOUT_MS,
  )
})
