import { Analytics, PluginError, type Plugin, type PluginMessage } from '../../src'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// What a plugin returns is read once, guarded, and never written into: a result that cannot be
// read fails its message closed with a PluginError naming the plugin (track() does not throw),
// and a frozen valid result is delivered. Over real HTTP.

let server: TestServer
serveEachTest((s) => (server = s))

function client(plugins: Plugin[], errors: Error[]) {
  return new Analytics('key', { host: server.url, flushAt: 100, retryDelay: 0, plugins, errorHandler: (e) => errors.push(e) })
}

function throwingProxy(): object {
  return new Proxy(
    {},
    {
      get() {
        throw new Error('trap')
      },
    },
  )
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

function throwingThen(): object {
  return {
    get then() {
      throw new Error('then getter')
    },
  }
}

// Not a thenable when the promise adopts it, a thenable when read again.
function shiftyThen(): object {
  let reads = 0
  return {
    get then() {
      reads += 1
      return reads === 1 ? undefined : (resolve: (value: unknown) => void) => resolve(shiftyThen())
    },
  }
}

function throwingKeys(m: PluginMessage): object {
  return new Proxy(m, {
    ownKeys() {
      throw new Error('ownKeys trap')
    },
  })
}

const UNREADABLE: [string, (m: PluginMessage) => unknown][] = [
  ['a Proxy whose get throws', () => throwingProxy()],
  ['a revoked Proxy', () => revokedProxy()],
  ['an object whose then getter throws', () => throwingThen()],
  ['a Proxy of the message whose ownKeys throws', (m) => throwingKeys(m)],
  ['a promise of a Proxy whose get throws', async () => throwingProxy()],
  ['a promise of a revoked Proxy', async () => revokedProxy()],
  ['a promise of an object whose then getter throws', () => Promise.resolve().then(() => throwingThen())],
  ['a promise of an object whose then getter changes', async () => shiftyThen()],
]

describe('a plugin whose result cannot be read', () => {
  it.each(UNREADABLE)('(%s) fails its message closed with one PluginError naming it; track() does not throw', async (_, process) => {
    const errors: Error[] = []
    const analytics = client([{ name: 'hostile', types: ['track'], process: process as Plugin['process'] }], errors)
    const seen: (Error | undefined)[] = []
    expect(() => analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))).not.toThrow()
    analytics.identify({ userId: 'u2' }, (err) => seen.push(err))
    await analytics.closeAndFlush()
    expect(server.messages.map((m) => m.type)).toEqual(['identify'])
    expect(seen).toHaveLength(2)
    const error = seen.find((e) => e !== undefined) as PluginError
    expect(error).toBeInstanceOf(PluginError)
    expect(error.plugin).toBe('hostile')
    expect(error.sentAnyway).toBe(false)
    expect(error.message).toMatch(/^track: plugin "hostile" (returned a message that cannot be read|threw) .*the message was dropped/)
    // The callback had it: errorHandler did not get it a second time.
    expect(errors).toEqual([])
  })

  it('gives errorHandler one PluginError per message when there is no callback', async () => {
    const errors: Error[] = []
    const analytics = client([{ name: 'hostile', process: () => revokedProxy() as never }], errors)
    for (let i = 0; i < 3; i++) expect(() => analytics.track({ userId: 'u1', event: 'E' })).not.toThrow()
    await analytics.closeAndFlush()
    expect(errors).toHaveLength(3)
    expect(errors[0].message).toBe(
      'track: plugin "hostile" returned a message that cannot be read (TypeError: Cannot perform \'get\' on a proxy that has been revoked); the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)',
    )
    expect(server.messages).toEqual([])
  })
})

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

describe('a frozen valid result', () => {
  const FROZEN: [string, Plugin['process']][] = [
    // As Immer's produce returns: a deep-frozen copy.
    ['a deep-frozen copy', (m) => deepFreeze(structuredClone(m))],
    ['Object.freeze({ ...message })', (m) => Object.freeze({ ...m })],
    ['the message frozen in place', (m) => void Object.freeze(m)],
    ['the message deep-frozen in place and returned', (m) => deepFreeze(m)],
    ['the message with a numeric userId, deep-frozen in place', (m) => void deepFreeze(Object.assign(m, { userId: 42 }))],
  ]

  it.each(FROZEN)('(%s) is delivered', async (_, process) => {
    const errors: Error[] = []
    const analytics = client([{ name: 'freeze', process }], errors)
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E', properties: { n: 1 } }, (err) => seen.push(err))
    analytics.identify({ userId: 'u1', traits: { plan: 'pro' } }, (err) => seen.push(err))
    await analytics.closeAndFlush()
    expect(seen).toEqual([undefined, undefined])
    expect(errors).toEqual([])
    expect(server.messages.map((m) => [m.type, typeof m.userId, m.properties ?? m.traits])).toEqual([
      ['track', 'string', { n: 1 }],
      ['identify', 'string', { plan: 'pro' }],
    ])
  })

  it('from a plugin is delivered after a second plugin replaces it again', async () => {
    const errors: Error[] = []
    const analytics = client(
      [
        { name: 'freeze', process: (m) => deepFreeze({ ...m }) },
        { name: 'tag', process: (m) => ({ ...m, context: { ...m.context, tagged: true } }) },
      ],
      errors,
    )
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.closeAndFlush()
    expect(errors).toEqual([])
    expect(server.messages[0].context.tagged).toBe(true)
  })
})
