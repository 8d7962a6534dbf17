import { AsyncLocalStorage } from 'node:async_hooks'
import * as otel from '@opentelemetry/api'
import { Analytics, ValidationError } from 'eventrail'
import { inContext, stampTraces, withContext } from 'eventrail/context'
import { stampTraces as fromOtelEntry } from '../../src/otel/index'
import { startTestServer, type TestServer } from '../helpers/test-server'

// Issue 33: "an opt-in stamp of the active traceId and spanId into context", the OpenTelemetry API
// passed in by the user. A context manager on AsyncLocalStorage stands in for the SDK's.
class AlsContextManager implements otel.ContextManager {
  readonly #storage = new AsyncLocalStorage<otel.Context>()
  active(): otel.Context {
    return this.#storage.getStore() ?? otel.ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: otel.Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(context, () => fn.call(thisArg, ...args))
  }
  bind<T>(_context: otel.Context, target: T): T {
    return target
  }
  enable(): this {
    return this
  }
  disable(): this {
    return this
  }
}

const SPAN = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: otel.TraceFlags.SAMPLED }

let server: TestServer
let analytics: Analytics
beforeAll(() => otel.context.setGlobalContextManager(new AlsContextManager()))
afterAll(() => otel.context.disable())
beforeEach(async () => {
  server = await startTestServer()
  analytics = new Analytics('KEY', { host: server.url, flushAt: 100 })
})
afterEach(async () => {
  await analytics.closeAndFlush()
  await server.close()
})

const inSpan = <R>(ids: typeof SPAN, fn: () => R): R =>
  otel.context.with(otel.trace.setSpan(otel.context.active(), otel.trace.wrapSpanContext(ids)), fn)

it('off by default: no trace ids', async () => {
  inSpan(SPAN, () => analytics.track({ userId: 'u', event: 'E' }))
  await analytics.flush()
  expect(server.messages[0].context.trace).toBeUndefined()
})

it("stamps the active span's ids, inside a request's context and outside one; the message's own context.trace wins", async () => {
  stampTraces(analytics, otel)
  const other = { ...SPAN, spanId: '1111111111111111' }
  inSpan(SPAN, () => analytics.track({ userId: 'u', event: 'Outside a context' }))
  await withContext(analytics, { userId: 'ctx', context: { ip: '192.0.2.1' } }, async () => {
    await inSpan(other, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1))
      inContext(analytics).track({ event: 'Inside' })
    })
  })
  analytics.track({ userId: 'u', event: 'No span' })
  inSpan(SPAN, () => analytics.track({ userId: 'u', event: 'Own', context: { trace: 'mine' } }))
  await analytics.flush()
  const [outside, inside, noSpan, own] = server.messages
  expect(outside.context.trace).toEqual({ traceId: SPAN.traceId, spanId: SPAN.spanId })
  expect(inside).toMatchObject({
    userId: 'ctx',
    context: { ip: '192.0.2.1', trace: { traceId: SPAN.traceId, spanId: '1111111111111111' } },
  })
  expect(noSpan.context.trace).toBeUndefined()
  expect(own.context.trace).toBe('mine')
})

it('eventrail/otel offers the same switch; undefined turns it off; something else than the API is refused', async () => {
  fromOtelEntry(analytics, otel)
  inSpan(SPAN, () => analytics.track({ userId: 'u', event: 'On' }))
  fromOtelEntry(analytics, undefined)
  inSpan(SPAN, () => analytics.track({ userId: 'u', event: 'Off' }))
  await analytics.flush()
  expect(server.messages.map((m) => m.context.trace)).toEqual([{ traceId: SPAN.traceId, spanId: SPAN.spanId }, undefined])
  expect(() => stampTraces(analytics, {} as never)).toThrow(ValidationError)
})
