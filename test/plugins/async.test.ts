import { Analytics, ClosedError, PluginError, TimeoutError, importMessages, type Plugin } from '../../src'
import { Recorder } from '../../src/testing'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// Plugins that return promises, over real HTTP: only that message waits; flush() and
// closeAndFlush() wait for it; a rejection or a hang (pluginTimeout) is the plugin's failure.

let server: TestServer
serveEachTest((s) => (server = s))

const later = <T>(ms: number, value?: T) => new Promise<T | undefined>((resolve) => setTimeout(() => resolve(value), ms))

function client(plugins: Plugin[], extra: Record<string, unknown> = {}) {
  return new Analytics('key', { host: server.url, flushAt: 100, retryDelay: 0, plugins, ...extra })
}

describe('an async plugin', () => {
  it('makes only its message wait, and flush() called at once waits for it and delivers it', async () => {
    const analytics = client([
      {
        name: 'lookup',
        types: ['identify'],
        process: async (m) => {
          await later(30)
          m.context.looked = true
        },
      },
    ])
    analytics.identify({ userId: 'u1' }).track({ userId: 'u1', event: 'E' })
    const { inPlugins, queued, inFlight } = analytics.stats()
    expect({ inPlugins, taken: queued + inFlight }).toEqual({ inPlugins: 1, taken: 1 })
    await analytics.flush()
    expect(server.messages.map((m) => m.type).sort()).toEqual(['identify', 'track'])
    expect(server.messages.find((m) => m.type === 'identify').context.looked).toBe(true)
    expect(analytics.stats()).toMatchObject({ inPlugins: 0, sent: 2 })
  })

  it('runs the plugins after it once its promise resolves, on the replacement it resolved with', async () => {
    const analytics = client([
      { name: 'a', process: async (m) => ({ ...m, context: { ...m.context, a: 1 } }) },
      { name: 'b', process: (m) => void (m.context.b = m.context.a === 1) },
    ])
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(server.messages[0].context).toMatchObject({ a: 1, b: true })
  })

  it('filters a message when it resolves with null', async () => {
    const analytics = client([{ name: 'maybe', process: async () => null }])
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    await analytics.flush()
    expect(server.messages).toEqual([])
    expect(seen[0]?.message).toBe('track: filtered by plugin "maybe" (it returned null); the message was not sent')
  })

  it('is waited for by analytics.deliver, which sends the message as soon as the plugin lets it go', async () => {
    const analytics = client([{ name: 'slow', types: ['track'], process: () => later(20) }], { flushInterval: 60_000 })
    // The client's first message goes at once; the one after it waits for flushAt or the interval.
    await analytics.deliver.identify({ userId: 'u1' })
    const outcome = await analytics.deliver.track({ userId: 'u1', event: 'E' })
    expect(outcome.delivered).toBe(true)
    expect(server.messages.map((m) => m.type)).toEqual(['identify', 'track'])
    await analytics.closeAndFlush()
  })

  it('is waited for by the platform with waitUntil: the message is sent though nobody awaits a flush', async () => {
    const held: Promise<unknown>[] = []
    const analytics = client([{ name: 'slow', types: ['track'], process: () => later(20) }], {
      flushInterval: 60_000,
      waitUntil: (promise: Promise<unknown>) => held.push(promise),
    })
    analytics.identify({ userId: 'u1' })
    analytics.track({ userId: 'u1', event: 'E' })
    // What a platform does after the handler returned: wait for what it was handed, nothing else.
    while (held.length > 0) await held.shift()
    expect(server.messages.map((m) => m.type)).toEqual(['identify', 'track'])
  })

  it('that rejects drops the message with a PluginError (no unhandled rejection), and the next message goes', async () => {
    let n = 0
    const analytics = client([
      {
        name: 'remote-scrub',
        process: async () => {
          n += 1
          if (n === 1) throw new Error('service down')
        },
      },
    ])
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    analytics.track({ userId: 'u2', event: 'E' }, (err) => seen.push(err))
    await analytics.flush()
    expect(server.messages.map((m) => m.userId)).toEqual(['u2'])
    expect(seen[0]).toBeInstanceOf(PluginError)
    expect(seen[0]?.message).toBe(
      'track: plugin "remote-scrub" threw Error: service down; the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)',
    )
    expect(seen[1]).toBeUndefined()
  })

  it('that never settles fails after pluginTimeout, and flush() waits no longer than that', async () => {
    const analytics = client([{ name: 'hangs', types: ['track'], process: () => new Promise(() => {}) }], { pluginTimeout: 50 })
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    analytics.identify({ userId: 'u1' })
    await analytics.flush()
    expect(server.messages.map((m) => m.type)).toEqual(['identify'])
    expect(seen[0]?.message).toBe(
      'track: plugin "hangs" did not settle within 50 ms (pluginTimeout); the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)',
    )
  })

  it('that hangs with onError: "continue" lets the message go after pluginTimeout', async () => {
    const analytics = client([{ name: 'slow-enrich', onError: 'continue', process: () => new Promise(() => {}) }], { pluginTimeout: 30 })
    const errors: Error[] = []
    analytics.on('error', (e) => errors.push(e))
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(errors[0]?.message).toMatch(
      /plugin "slow-enrich" did not settle within 30 ms \(pluginTimeout\); the message was sent as it stood/,
    )
  })

  it('is waited for by closeAndFlush(), which refuses messages that come after it', async () => {
    const analytics = client([{ name: 'slow', process: () => later(30) }])
    analytics.track({ userId: 'u1', event: 'E' })
    const closing = analytics.closeAndFlush()
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u2', event: 'E' }, (err) => seen.push(err))
    await closing
    expect(server.messages.map((m) => m.userId)).toEqual(['u1'])
    expect(seen[0]).toBeInstanceOf(ClosedError)
  })

  it('is bounded by the timeout of closeAndFlush({ timeout }): the message ends with a TimeoutError by then, once', async () => {
    let finished = false
    const analytics = client([{ name: 'slow', process: () => later(300).then(() => void (finished = true)) }], { pluginTimeout: 1_000 })
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    await analytics.closeAndFlush({ timeout: 50 }).catch(() => {})
    expect(finished).toBe(false)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(TimeoutError)
    // Its plugin ending later changes nothing: no second outcome, nothing sent.
    await later(350)
    expect(finished).toBe(true)
    expect(seen).toHaveLength(1)
    expect(server.messages).toEqual([])
  })
})

describe('plugins everywhere', () => {
  it('run with enable: false, and the Recorder sees what would be sent', async () => {
    const recorder = new Recorder()
    const scrub: Plugin = { name: 'scrub', process: (m) => void (m.type === 'identify' && m.traits && delete m.traits.email) }
    const analytics = new Analytics('key', { fetch: recorder.fetch, plugins: [scrub] })
    analytics.identify({ userId: 'u1', traits: { email: 'ada@example.com', plan: 'pro' } })
    await analytics.flush()
    expect(recorder.ofType('identify')[0].traits).toEqual({ plan: 'pro' })

    let ran = 0
    const off = new Analytics('key', { enable: false, plugins: [{ name: 'count', process: () => void (ran += 1) }] })
    off.track({ userId: 'u1', event: 'E' })
    await off.flush()
    expect(ran).toBe(1)
  })

  it('run for importMessages() (lines and objects), with via "import", unless the import opts out', async () => {
    const vias: string[] = []
    const scrub: Plugin = {
      name: 'scrub',
      process(m, info) {
        vias.push(info.via)
        if (m.type === 'track' && m.properties) delete m.properties.email
      },
    }
    const analytics = client([scrub], { flushAt: 1000 })
    const lines = [
      JSON.stringify({ type: 'track', userId: 'u1', event: 'E', properties: { email: 'a@b.c', n: 1 } }),
      { type: 'track', userId: 'u2', event: 'E', properties: { email: 'a@b.c', n: 2 } },
    ]
    const summary = await importMessages(lines, analytics)
    expect(summary).toMatchObject({ sent: 2, refused: 0, failed: 0 })
    expect(server.messages.map((m) => m.properties)).toEqual([{ n: 1 }, { n: 2 }])
    expect(vias).toEqual(['import', 'import'])

    const raw = await importMessages(lines, analytics, { plugins: false })
    expect(raw).toMatchObject({ sent: 2 })
    expect(server.messages.slice(2).map((m) => m.properties)).toEqual([
      { email: 'a@b.c', n: 1 },
      { email: 'a@b.c', n: 2 },
    ])
    expect(vias).toHaveLength(2)
    // A plugin's drop is the item's outcome in the summary: skipped on purpose, not an issue.
    const dropAll = client([{ name: 'none', process: () => null }], { flushAt: 1000 })
    const issues: string[] = []
    const dropped = await importMessages(lines, dropAll, { onIssue: (i) => issues.push(i.reason) })
    expect(dropped).toMatchObject({ sent: 0, skipped: 2, failed: 0, refused: 0 })
    expect(issues).toEqual([])
  })
})
