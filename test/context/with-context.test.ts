import { Analytics, EventrailError, ValidationError } from 'eventrail'
import { currentContext, inContext, withContext } from 'eventrail/context'
import { startTestServer, type TestServer } from '../helpers/test-server'

let server: TestServer
let analytics: Analytics
beforeEach(async () => {
  server = await startTestServer()
  analytics = new Analytics('KEY', { host: server.url, flushAt: 100 })
})
afterEach(async () => {
  await analytics.closeAndFlush()
  await server.close()
})

const sent = async () => {
  await analytics.flush()
  return server.messages
}

it("the message's own fields win; the context fills only what it leaves out", async () => {
  const a = inContext(analytics)
  withContext(
    analytics,
    { userId: 'ctx-user', anonymousId: 'ctx-anon', context: { ip: '192.0.2.1', page: { url: 'https://e.com/a', title: 'A' } } },
    () => {
      a.track({ event: 'Own ids', userId: 'own-user', context: { page: { url: 'https://e.com/own' } } })
      a.track({ event: 'No ids' })
      a.track({ event: 'Null anonymousId', anonymousId: null })
      a.alias({ previousId: 'p' })
    },
  )
  const [own, none, nulled, alias] = await sent()
  expect(own).toMatchObject({
    userId: 'own-user',
    anonymousId: 'ctx-anon',
    context: { ip: '192.0.2.1', page: { url: 'https://e.com/own' } },
  })
  expect(own.context.page.title).toBeUndefined()
  expect(none).toMatchObject({
    userId: 'ctx-user',
    anonymousId: 'ctx-anon',
    context: { ip: '192.0.2.1', page: { url: 'https://e.com/a', title: 'A' } },
  })
  expect(nulled.anonymousId).toBeUndefined()
  expect(alias).toMatchObject({ type: 'alias', userId: 'ctx-user', previousId: 'p' })
  expect(alias.anonymousId).toBeUndefined()
})

it('nested contexts refine the outer one: ids replaced, context objects merged field by field; the outer one is back after', async () => {
  const a = inContext(analytics)
  await withContext(
    analytics,
    { anonymousId: 'anon', context: { page: { url: 'https://e.com/', title: 'Home' }, ip: '192.0.2.1' } },
    async () => {
      await withContext(analytics, { userId: 'signed-in', context: { page: { title: 'Account' } } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1))
        expect(currentContext(analytics)).toMatchObject({ userId: 'signed-in', anonymousId: 'anon' })
        a.track({ event: 'Inner' })
      })
      a.track({ event: 'Outer' })
    },
  )
  const [inner, outer] = await sent()
  expect(inner).toMatchObject({
    userId: 'signed-in',
    anonymousId: 'anon',
    context: { ip: '192.0.2.1', page: { url: 'https://e.com/', title: 'Account' } },
  })
  expect(outer).toMatchObject({ anonymousId: 'anon', context: { page: { title: 'Home' } } })
  expect(outer.userId).toBeUndefined()
  expect(currentContext(analytics)).toBeUndefined()
})

it('a context applies to the client it was given for, not to another client', async () => {
  const other = new Analytics('OTHER', { host: server.url, flushAt: 100 })
  const refused: Error[] = []
  withContext(analytics, { userId: 'u1' }, () => {
    inContext(other).track({ event: 'Other client' }, (err) => err && refused.push(err))
    inContext(analytics).track({ event: 'This client' })
  })
  await other.closeAndFlush()
  expect((await sent()).map((m) => m.event)).toEqual(['This client'])
  expect(refused[0]).toBeInstanceOf(ValidationError)
})

it("a message without ids outside any context is still invalid, and the context's `fn` result is returned", async () => {
  const errors: Error[] = []
  inContext(analytics).track({ event: 'No ids' }, (err) => err && errors.push(err))
  expect(withContext(analytics, { userId: 'u' }, () => 42)).toBe(42)
  await analytics.flush()
  expect(errors[0]).toBeInstanceOf(ValidationError)
})

it.each([
  [{ userId: '' }, /"userId" must be a non-empty string/],
  [{ context: [] }, /"context" must be an object/],
  [{ context: { library: {} } }, /"context" must not set "library"/],
  [null, /"context" must be an object/],
])('withContext(%j) is refused, naming the field', (input, message) => {
  expect(() => withContext(analytics, input as never, () => undefined)).toThrow(message)
})

it('withContext refuses what is not an eventrail client', () => {
  expect(() => withContext({}, {}, () => undefined)).toThrow(/"analytics" must be an Analytics client/)
})

it('where the runtime has no AsyncLocalStorage, withContext says so clearly', async () => {
  // A fresh copy of the entry, in a host without AsyncLocalStorage (a Worker without nodejs_compat).
  const saved = { global: (globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage, getBuiltinModule: process.getBuiltinModule }
  ;(process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined
  try {
    await jest.isolateModulesAsync(async () => {
      const fresh = (await import('eventrail/context')) as typeof import('eventrail/context')
      let thrown: unknown
      try {
        fresh.withContext(analytics, { userId: 'u' }, () => undefined)
      } catch (err) {
        thrown = err
      }
      expect(EventrailError.is(thrown)).toBe(true)
      expect((thrown as Error).message).toMatch(/no AsyncLocalStorage .*nodejs_compat/)
    })
  } finally {
    ;(process as { getBuiltinModule?: unknown }).getBuiltinModule = saved.getBuiltinModule
  }
})
