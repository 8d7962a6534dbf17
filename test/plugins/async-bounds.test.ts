import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Analytics, QueueFullError, type Plugin } from '../../src'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// Messages waiting in an async plugin count toward maxQueueSize and maxQueueBytes: past the
// bounds a new message is refused at the call, at once, and every message still gets exactly one
// outcome. Over real HTTP.

let server: TestServer
serveEachTest((s) => (server = s))

// A plugin that holds every message until the test opens the gate.
function gated(types?: Plugin['types']): { plugin: Plugin; open: () => void } {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  return { plugin: { name: 'lookup', ...(types === undefined ? {} : { types }), process: () => gate }, open }
}

function client(plugin: Plugin, extra: Record<string, unknown>) {
  return new Analytics('key', { host: server.url, flushAt: 100, retryDelay: 0, plugins: [plugin], ...extra })
}

async function tick(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
}

describe('messages in an async plugin', () => {
  it('count toward maxQueueSize: past it, a new message is refused at the call with a QueueFullError', async () => {
    const { plugin, open } = gated()
    const analytics = client(plugin, { maxQueueSize: 50 })
    const outcomes = new Map<number, (Error | undefined)[]>()
    for (let i = 0; i < 500; i++) {
      outcomes.set(i, [])
      analytics.track({ userId: `u${i}`, event: 'E' }, (err) => outcomes.get(i)?.push(err))
    }
    await tick()
    expect(analytics.stats().inPlugins).toBe(50)
    // Refused at once, while the first 50 still wait in the plugin.
    const refused = [...outcomes.values()].filter((seen) => seen.length === 1 && seen[0] instanceof QueueFullError)
    expect(refused).toHaveLength(450)
    expect(refused[0][0]?.message).toMatch(/^the queue is full \(50 messages, about \d+ bytes, 50 of them in plugins; maxQueueSize 50/)
    open()
    await analytics.closeAndFlush()
    expect(server.messages).toHaveLength(50)
    expect([...outcomes.values()].every((seen) => seen.length === 1)).toBe(true)
    expect(analytics.stats()).toMatchObject({ sent: 50, refusedBy: { queue_full: 450 } })
  })

  it('count toward maxQueueBytes by an estimate of their size', async () => {
    const { plugin, open } = gated()
    const analytics = client(plugin, { maxQueueSize: 10_000, maxQueueBytes: 20_000 })
    const seen: (Error | undefined)[] = []
    const blob = 'x'.repeat(1_000)
    for (let i = 0; i < 200; i++) analytics.track({ userId: `u${i}`, event: 'E', properties: { blob } }, (err) => seen.push(err))
    await tick()
    const held = analytics.stats().inPlugins
    // About 1.2 KB each: some 17 fit in 20,000 bytes; the rest are refused at once.
    expect(held).toBeGreaterThan(10)
    expect(held).toBeLessThan(25)
    expect(seen.filter((e) => e instanceof QueueFullError)).toHaveLength(200 - held)
    open()
    await analytics.closeAndFlush()
    expect(server.messages).toHaveLength(held)
    expect(seen).toHaveLength(200)
  })

  it('count toward the bounds for messages that no plugin holds (another type)', async () => {
    const { plugin, open } = gated(['track'])
    const analytics = client(plugin, { maxQueueSize: 10 })
    const seen: (Error | undefined)[] = []
    for (let i = 0; i < 10; i++) analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
    analytics.identify({ userId: 'u1' }, (err) => seen.push(err))
    await tick()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(QueueFullError)
    open()
    await analytics.closeAndFlush()
    // Once the plugin let them go and they were sent, there is room again.
    analytics.identify({ userId: 'u1' }, (err) => seen.push(err))
    await tick()
    expect(server.messages).toHaveLength(10)
    expect(seen).toHaveLength(12)
  })

  it('with a spool, are bounded on their own: messages that wait in no plugin go on (to the disk when memory is full)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventrail-plugins-'))
    try {
      const { plugin, open } = gated(['track'])
      const analytics = client(plugin, { maxQueueSize: 10, spool: { dir } })
      const seen: (Error | undefined)[] = []
      for (let i = 0; i < 30; i++) analytics.track({ userId: 'u1', event: 'E' }, (err) => seen.push(err))
      for (let i = 0; i < 30; i++) analytics.identify({ userId: 'u1' }, (err) => seen.push(err))
      await tick()
      expect(analytics.stats().inPlugins).toBe(10)
      expect(seen.filter((e) => e instanceof QueueFullError)).toHaveLength(20)
      open()
      await analytics.closeAndFlush()
      expect(seen).toHaveLength(60)
      expect(server.messages.map((m) => m.type).sort()).toEqual([...Array(30).fill('identify'), ...Array(10).fill('track')])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
