import { Analytics, TimeoutError, type Plugin } from '../../src'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// closeAndFlush({ timeout }) covers the messages still in an async plugin: by the time it
// resolves each has its one outcome, a TimeoutError as the queued ones get, and no pluginTimeout
// timer is left to hold the process. Over real HTTP.

let server: TestServer
serveEachTest((s) => (server = s))

const hangs: Plugin = { name: 'hangs', types: ['track'], process: () => new Promise(() => {}) }

function client(plugins: Plugin[]) {
  return new Analytics('key', { host: server.url, flushAt: 100, retryDelay: 0, pluginTimeout: PLUGIN_TIMEOUT_MS, plugins, errorHandler: () => {} })
}

// The pluginTimeout timers (60 s: no other timer of the client is that long) set and not yet
// cleared. Counting every active Timeout of the process instead would count a keep-alive socket's
// timer left by the test before.
const PLUGIN_TIMEOUT_MS = 60_000
const pending = new Set<unknown>()
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
beforeAll(() => {
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const handle = realSetTimeout(() => {
      pending.delete(handle)
      fn()
    }, ms)
    if (ms === PLUGIN_TIMEOUT_MS) pending.add(handle)
    return handle
  }) as typeof setTimeout
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle)
    realClearTimeout(handle)
  })
})
afterAll(() => {
  globalThis.setTimeout = realSetTimeout
  globalThis.clearTimeout = realClearTimeout
})

function timeouts(): number {
  return pending.size
}

describe('closeAndFlush({ timeout }) with messages in an async plugin', () => {
  it('gives each of them a TimeoutError by the time it resolves, and the other messages their own outcome', async () => {
    const analytics = client([hangs])
    const seen = new Map<string, (Error | undefined)[]>()
    for (const userId of ['u1', 'u2']) {
      seen.set(userId, [])
      analytics.track({ userId, event: 'E' }, (err) => seen.get(userId)?.push(err))
    }
    seen.set('id', [])
    analytics.identify({ userId: 'u3' }, (err) => seen.get('id')?.push(err))
    await analytics.closeAndFlush({ timeout: 100 })
    expect(seen.get('id')).toEqual([undefined])
    for (const userId of ['u1', 'u2']) {
      expect(seen.get(userId)).toHaveLength(1)
      expect(seen.get(userId)?.[0]).toBeInstanceOf(TimeoutError)
      expect(seen.get(userId)?.[0]?.message).toBe(
        'track: closeAndFlush: the message was still in plugin "hangs" after 100 ms (the close\'s timeout); it was not sent',
      )
    }
    expect(server.messages.map((m) => m.type)).toEqual(['identify'])
    expect(analytics.stats()).toMatchObject({ inPlugins: 0, refusedBy: { close_timeout: 2 } })
  })

  it('leaves no pluginTimeout timer holding the process once it resolved', async () => {
    const before = timeouts()
    const analytics = client([hangs])
    analytics.track({ userId: 'u1', event: 'E' })
    expect(timeouts()).toBe(before + 1)
    await analytics.closeAndFlush({ timeout: 50 })
    expect(timeouts()).toBe(before)
  })

  it('gives no second outcome when the plugin settles after the timeout', async () => {
    let finish!: () => void
    const late: Plugin = { name: 'late', process: () => new Promise<void>((resolve) => (finish = resolve)) }
    const analytics = client([late, { name: 'after', process: (m) => void (m.context.after = true) }])
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    await analytics.closeAndFlush({ timeout: 30 })
    finish()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(TimeoutError)
    expect(server.messages).toEqual([])
  })

  it('without a timeout waits for the plugin, and the message is delivered', async () => {
    const quick: Plugin = { name: 'quick', process: () => new Promise<void>((resolve) => setTimeout(resolve, 30)) }
    const analytics = client([quick])
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    await analytics.closeAndFlush()
    expect(seen).toEqual([undefined])
    expect(server.messages).toHaveLength(1)
  })
})
