import { Analytics, FilteredError, PluginError, ValidationError, type Plugin } from '../../src'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// Every outcome of a plugin, over real HTTP: what arrives at the server, what the callback hears,
// what listeners and stats() see, and that nothing is ever thrown from track() or left unhandled.

let server: TestServer
serveEachTest((s) => (server = s))

function client(plugins: Plugin[], extra: Record<string, unknown> = {}) {
  return new Analytics('key', { host: server.url, flushAt: 100, retryDelay: 0, plugins, ...extra })
}

function outcomes() {
  const seen: (Error | undefined)[] = []
  return { seen, callback: (err: Error | undefined) => seen.push(err) }
}

describe('plugins given in the constructor', () => {
  it('change a message in place, after normalization, and the server receives the change', async () => {
    let seenByPlugin: any
    const analytics = client([
      {
        name: 'scrub',
        process(message) {
          seenByPlugin = { ...message, context: { ...message.context } }
          if (message.type === 'track' && message.properties) delete message.properties.email
          message.context.plugged = true
        },
      },
    ])
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { email: 'ada@example.com', plan: 'pro' } })
    await analytics.flush()
    expect(seenByPlugin).toMatchObject({ type: 'track', messageId: expect.any(String), timestamp: expect.any(String) })
    expect(seenByPlugin.context.library.name).toBe('eventrail')
    const [sent] = server.messages
    expect(sent.properties).toEqual({ plan: 'pro' })
    expect(sent.context).toMatchObject({ plugged: true, library: { name: 'eventrail' } })
  })

  it('run in order, each on what the one before left, only for the types they name', async () => {
    const order: string[] = []
    const analytics = client([
      { name: 'a', process: (m) => void order.push(`a:${m.type}`) },
      { name: 'b', types: ['identify'], process: (m) => void order.push(`b:${m.type}`) },
      { name: 'c', process: (m) => void order.push(`c:${m.type}`) },
    ])
    analytics.track({ userId: 'u1', event: 'E' }).identify({ userId: 'u1' })
    await analytics.flush()
    expect(order).toEqual(['a:track', 'c:track', 'a:identify', 'b:identify', 'c:identify'])
    expect(server.messages).toHaveLength(2)
  })

  it('replace a message with the one they return', async () => {
    const analytics = client([{ name: 'rename', process: (m) => (m.type === 'track' ? { ...m, event: `Renamed ${m.event}` } : undefined) }])
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(server.messages.map((m) => m.event)).toEqual(['Renamed E'])
  })

  it('filter a message that they return null for: the callback hears a FilteredError naming the plugin, and no error is reported', async () => {
    const errors: Error[] = []
    const drops: Error[] = []
    const analytics = client([{ name: 'drop-bots', types: ['track'], process: (m) => (m.userId?.startsWith('bot') ? null : undefined) }])
      .on('error', (e) => errors.push(e))
      .on('drop', (d) => drops.push(d.error))
    const { seen, callback } = outcomes()
    analytics.track({ userId: 'bot-1', event: 'E' }, callback)
    analytics.track({ userId: 'u1', event: 'E' }, callback)
    await analytics.flush()
    expect(server.messages.map((m) => m.userId)).toEqual(['u1'])
    expect(seen).toHaveLength(2)
    expect(seen[0]).toBeInstanceOf(FilteredError)
    expect((seen[0] as FilteredError).plugin).toBe('drop-bots')
    expect(seen[0]?.message).toBe('track: filtered by plugin "drop-bots" (it returned null); the message was not sent')
    expect(seen[1]).toBeUndefined()
    expect(errors).toEqual([])
    expect(drops).toEqual([seen[0]])
    expect(analytics.stats()).toMatchObject({ filtered: 1, dropped: 0, pluginErrors: 0, sent: 1 })
  })

  it('fail closed when one throws: the message is dropped with a PluginError naming the plugin, never thrown, and later messages go', async () => {
    const errors: Error[] = []
    let calls = 0
    const analytics = client([
      { name: 'enrich', process: (m) => void (m.context.enriched = true) },
      {
        name: 'scrub',
        process(m) {
          calls += 1
          if (m.type === 'track' && m.properties) m.properties.email = '[redacted]'
          if (calls === 1) throw new TypeError('boom half-way')
        },
      },
    ]).on('error', (e) => errors.push(e))
    const { seen, callback } = outcomes()
    expect(() => analytics.track({ userId: 'u1', event: 'E', properties: { email: 'a@b.c' } }, callback)).not.toThrow()
    // Without a callback or errorHandler: still not thrown (the caller's input was valid).
    expect(() => analytics.track({ userId: 'u2', event: 'E' })).not.toThrow()
    analytics.track({ userId: 'u3', event: 'E' }, callback)
    await analytics.flush()
    expect(server.messages.map((m) => m.userId)).toEqual(['u2', 'u3'])
    const error = seen[0] as PluginError
    expect(error).toBeInstanceOf(PluginError)
    expect(error.plugin).toBe('scrub')
    expect(error.sentAnyway).toBe(false)
    expect((error.cause as Error).message).toBe('boom half-way')
    expect(error.message).toBe(
      'track: plugin "scrub" threw TypeError: boom half-way; the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)',
    )
    expect(seen[1]).toBeUndefined()
    expect(errors).toEqual([error])
    expect(analytics.stats()).toMatchObject({ pluginErrors: 1, dropped: 1, sent: 2 })
  })

  it('let the message through when the plugin says onError: "continue", as it stood when the plugin threw', async () => {
    const errors: Error[] = []
    const analytics = client([
      {
        name: 'geo',
        onError: 'continue',
        process(m) {
          m.context.region = 'eu'
          throw new Error('lookup failed')
        },
      },
    ]).on('error', (e) => errors.push(e))
    const { seen, callback } = outcomes()
    analytics.track({ userId: 'u1', event: 'E' }, callback)
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(server.messages[0].context.region).toBe('eu')
    expect(seen).toEqual([undefined])
    expect(errors).toHaveLength(1)
    expect((errors[0] as PluginError).sentAnyway).toBe(true)
    expect(errors[0].message).toBe('track: plugin "geo" threw Error: lookup failed; the message was sent as it stood (onError: "continue")')
    expect(analytics.stats()).toMatchObject({ pluginErrors: 1, dropped: 0, sent: 1 })
  })

  it('treat a return value that is not a message as the plugin failing', async () => {
    const analytics = client([{ name: 'bad', process: () => 42 as never }])
    const { seen, callback } = outcomes()
    analytics.track({ userId: 'u1', event: 'E' }, callback)
    await analytics.flush()
    expect(server.messages).toEqual([])
    expect(seen[0]?.message).toBe(
      'track: plugin "bad" returned a number (expected nothing, null or a message object); the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)',
    )
  })

  it('go to errorHandler when a dropped message has no callback', async () => {
    const handled: Error[] = []
    const analytics = client(
      [
        {
          name: 'x',
          process: () => {
            throw new Error('no')
          },
        },
      ],
      { errorHandler: (e: Error) => handled.push(e) },
    )
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(handled.map((e) => e.name)).toEqual(['PluginError'])
  })
})

describe('the message a plugin leaves is checked again before it is queued', () => {
  it.each([
    ['changes the type', (m: any) => void (m.type = 'identify'), 'track after plugins ("p"): "type" must stay "track" (got a string)'],
    [
      'removes the identity',
      (m: any) => void delete m.userId,
      'track after plugins ("p"): "userId" or "anonymousId" is required (a non-empty string or a number)',
    ],
    ['blanks the event', (m: any) => void (m.event = ''), 'track after plugins ("p"): "event" is required and must be a non-empty string'],
    ['removes the messageId', (m: any) => void delete m.messageId, 'track after plugins ("p"): "messageId" must be a non-empty string'],
    [
      'makes it over 32 KB',
      (m: any) => void (m.properties = { big: 'x'.repeat(40_000) }),
      /^track after plugins \("p"\): "message" is \d+ bytes serialized, more than the limit of 32768 bytes$/,
    ],
    [
      'puts in a cycle',
      (m: any) => void (m.properties = { self: m }),
      /^track after plugins \("p"\): "message" must be serializable as JSON \(TypeError: Converting circular/,
    ],
  ])('refuses the message when a plugin %s, naming the plugins, without throwing from track()', async (_what, process, expected) => {
    const analytics = client([{ name: 'p', process }])
    const { seen, callback } = outcomes()
    expect(() => analytics.track({ userId: 'u1', event: 'E', properties: {} }, callback)).not.toThrow()
    analytics.track({ userId: 'u2', event: 'E' })
    await analytics.flush()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(ValidationError)
    if (typeof expected === 'string') expect(seen[0]?.message).toBe(expected)
    else expect(seen[0]?.message).toMatch(expected)
    expect(analytics.stats().dropped).toBe(2)
  })

  it('sends ids a plugin set as numbers as strings', async () => {
    const analytics = client([{ name: 'p', process: (m: any) => void (m.userId = 42) }])
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(server.messages[0].userId).toBe('42')
  })

  it("still throws the caller's own invalid message from track(), before any plugin runs", () => {
    let ran = false
    const analytics = client([{ name: 'p', process: () => void (ran = true) }])
    expect(() => analytics.track({ event: 'E' } as never)).toThrow('track: "userId" or "anonymousId" is required')
    expect(ran).toBe(false)
  })
})

describe('the plugins option', () => {
  it.each([
    [{ plugins: {} }, 'Analytics: "plugins" must be an array of plugins, got an object'],
    [{ plugins: [null] }, 'Analytics: "plugins[0]" must be a plugin object ({ name, process }), got null'],
    [{ plugins: [{ process() {} }] }, 'Analytics: "plugins[0].name" is required and must be a non-empty string'],
    [
      {
        plugins: [
          { name: 'a', process() {} },
          { name: 'a', process() {} },
        ],
      },
      'Analytics: "plugins[1].name" must be unique among the plugins ("a" is given twice)',
    ],
    [{ plugins: [{ name: 'a' }] }, 'Analytics: "plugins[0].process" must be a function (plugin "a"), got undefined'],
    [
      { plugins: [{ name: 'a', process() {}, types: ['tracks'] }] },
      'Analytics: "plugins[0].types" must be an array of message types (identify, track, page, screen, group, alias) (plugin "a")',
    ],
    [
      { plugins: [{ name: 'a', process() {}, onError: 'ignore' }] },
      'Analytics: "plugins[0].onError" must be "drop" or "continue" (plugin "a")',
    ],
    [{ pluginTimeout: 0 }, 'Analytics: "pluginTimeout" must be a number from 1 to 2147483647 (milliseconds)'],
  ])('is checked: %j', (options, message) => {
    expect(() => new Analytics('key', options as never)).toThrow(message)
  })
})
