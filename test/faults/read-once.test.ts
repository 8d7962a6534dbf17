import { Analytics, type AnalyticsOptions, type MessageType, type Plugin } from '../../src'

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
