import { Analytics, type Plugin } from '../../src'
import { startTestServer, type TestServer } from '../helpers/test-server'

// The static `context` option: merged into every message's context at normalization, no plugin needed.

let server: TestServer
beforeEach(async () => {
  server = await startTestServer()
})
afterEach(() => server.close())

const APP = { app: { name: 'api', version: '1.4.0' }, environment: 'production' }

describe('the context option', () => {
  it("is merged into every message: library first, then the option, then the message's own fields (which win, whole)", async () => {
    const analytics = new Analytics('key', { host: server.url, context: APP })
    analytics.track({ userId: 'u1', event: 'E' })
    analytics.identify({ userId: 'u1', context: { ip: '203.0.113.9', app: { name: 'worker' } } })
    analytics.alias({ previousId: 'a1', userId: 'u1' })
    await analytics.flush()
    const byType = Object.fromEntries(server.messages.map((m) => [m.type, m.context]))
    expect(byType.track).toEqual({ library: { name: 'eventrail', version: expect.any(String) }, ...APP })
    expect(Object.keys(byType.track)[0]).toBe('library')
    expect(byType.identify).toEqual({
      library: { name: 'eventrail', version: expect.any(String) },
      app: { name: 'worker' },
      environment: 'production',
      ip: '203.0.113.9',
    })
    expect(byType.alias).toMatchObject(APP)
  })

  it("is the client's own copy: changing the object given, or a plugin changing a message's context, changes no other message", async () => {
    const given = { app: { name: 'api' } }
    const plugin: Plugin = { name: 'mark', process: (m) => void ((m.context.app as { name: string }).name += '!') }
    const analytics = new Analytics('key', { host: server.url, context: given, plugins: [plugin] })
    given.app.name = 'changed'
    analytics.track({ userId: 'u1', event: 'E' }).track({ userId: 'u2', event: 'E' })
    await analytics.flush()
    expect(server.messages.map((m) => m.context.app.name)).toEqual(['api!', 'api!'])
  })

  it.each([
    ['a string', 'x', "Analytics: \"context\" must be an object such as { app: { name: 'api', version: '1.4.0' } }, got a string"],
    ['library', { library: { name: 'x' } }, 'Analytics: "context" must not set "library" (the client sets it to its own name and version)'],
    ['a BigInt', { n: 1n }, /^Analytics: "context" must be serializable as JSON \(TypeError: /],
  ])('is checked: %s', (_what, context, message) => {
    expect(() => new Analytics('key', { context } as never)).toThrow(message)
  })
})
