import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Analytics, importMessages, type AnalyticsOptions, type MessageType, type Plugin } from '../../src'

const noopPlugin: Plugin = { name: 'noop', process: (m) => m }
import { startTestServer, type TestServer } from '../helpers/test-server'

// Every value of a caller's object is read once: a getter that answers each read differently
// cannot make the client say one thing and send another.

/** A message whose getters count their reads; `messageId` answers `id-first`, then `id-second`, … */
function shiftyMessage(type: MessageType, reads: Map<string, number>): Record<string, unknown> {
  const ids = ['id-first', 'id-second', 'id-third', 'id-fourth']
  const fields: Record<string, unknown> = {
    userId: 'u1',
    previousId: 'p1',
    groupId: 'g1',
    event: 'Shifty',
    properties: { a: 1 },
  }
  const message: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'event' && type !== 'track') continue
    if (key === 'groupId' && type !== 'group') continue
    if (key === 'previousId' && type !== 'alias') continue
    Object.defineProperty(message, key, {
      enumerable: true,
      get: () => {
        reads.set(key, (reads.get(key) ?? 0) + 1)
        return value
      },
    })
  }
  Object.defineProperty(message, 'messageId', {
    enumerable: true,
    get: () => {
      const n = reads.get('messageId') ?? 0
      reads.set('messageId', n + 1)
      return ids[n]
    },
  })
  return message
}

const TYPES: MessageType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias']

describe("a caller's message is read once", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  describe.each<[string, AnalyticsOptions]>([
    ['without plugins', {}],
    ['with a plugin', { plugins: [noopPlugin] }],
  ])('%s', (_name, extra) => {
    it.each(TYPES)('deliver.%s: the outcome names the id that was sent, and each getter ran once', async (type) => {
      const analytics = new Analytics('read-once-key', { host: server.url, flushInterval: 0, ...extra })
      const reads = new Map<string, number>()
      const before = server.messages.length
      const outcome = await (analytics.deliver[type] as (m: unknown) => Promise<{ delivered: boolean; messageId?: string }>)(
        shiftyMessage(type, reads),
      )
      await analytics.closeAndFlush()
      const sent = server.messages.slice(before)
      expect(sent.map((m: { messageId: string }) => m.messageId)).toEqual(['id-first'])
      expect(outcome).toMatchObject({ delivered: true, messageId: 'id-first' })
      expect([...reads.values()].every((n) => n === 1)).toBe(true)
      expect(reads.get('messageId')).toBe(1)
    })
  })

  it('deliver.track: a message without an id gets one, named by the outcome and sent', async () => {
    const analytics = new Analytics('read-once-key', { host: server.url, flushInterval: 0 })
    const before = server.messages.length
    const outcome = await analytics.deliver.track({ userId: 'u1', event: 'No Id' })
    await analytics.closeAndFlush()
    expect(outcome.delivered).toBe(true)
    expect(server.messages.slice(before).map((m: { messageId: string }) => m.messageId)).toEqual([outcome.messageId])
  })

  it('deliver.track on a closed client: refused with a ClosedError (its read-ahead is released)', async () => {
    const analytics = new Analytics('read-once-key', {
      host: server.url,
      flushInterval: 0,
      plugins: [noopPlugin],
    })
    await analytics.closeAndFlush()
    const outcome = await analytics.deliver.track({ userId: 'u1', event: 'Late' })
    expect(outcome).toMatchObject({ delivered: false, error: { name: 'ClosedError' } })
  })
})

/** `value` behind a getter that counts its reads in `reads[key]`. */
function counted<T extends object>(target: T, key: string, value: unknown, reads: Record<string, number>): T {
  Object.defineProperty(target, key, {
    enumerable: true,
    get: () => {
      reads[key] = (reads[key] ?? 0) + 1
      return value
    },
  })
  return target
}

describe("a caller's options and import items are read once", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it('new Analytics(): each option, a spool option and a plugin are read once', async () => {
    const reads: Record<string, number> = {}
    const dir = mkdtempSync(join(tmpdir(), 'eventrail-read-once-'))
    try {
      const spool = counted({}, 'dir', dir, reads)
      const plugin = counted(counted({ process: (m: unknown) => m }, 'name', 'counted', reads), 'types', ['track'], reads)
      const options = counted(counted({ flushInterval: 0, spool, plugins: [plugin] }, 'host', server.url, reads), 'flushAt', 1, reads)
      const analytics = new Analytics('read-once-key', options as unknown as AnalyticsOptions)
      await analytics.deliver.track({ userId: 'u1', event: 'Options' })
      await analytics.closeAndFlush()
      expect(reads).toEqual({ host: 1, flushAt: 1, dir: 1, name: 1, types: 1 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('importMessages(): an item object is read once; the id sent is the one its getter gave first', async () => {
    const analytics = new Analytics('read-once-import', { host: server.url, flushInterval: 0 })
    const before = server.messages.length
    const reads = new Map<string, number>()
    const item = { type: 'track', ...{} }
    const shifty = shiftyMessage('track', reads)
    for (const key of Object.keys(shifty))
      Object.defineProperty(item, key, Object.getOwnPropertyDescriptor(shifty, key) as PropertyDescriptor)
    const summary = await importMessages([item], analytics)
    await analytics.closeAndFlush()
    expect(summary).toMatchObject({ read: 1, sent: 1 })
    expect(server.messages.slice(before).map((m: { messageId: string }) => m.messageId)).toEqual(['id-first'])
    expect([...reads.values()].every((n) => n === 1)).toBe(true)
  })
})
