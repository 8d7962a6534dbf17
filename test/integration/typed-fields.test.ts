// Issue 23, point 6: a field the spec makes a string (the ids, messageId, track's event, the
// name and category of page and screen) is refused, naming the field, when it holds a Date or any
// object with a toJSON, instead of being sent as what its toJSON returns. Through the six
// methods, deliver.* and a Recorder; a real HTTP server on 127.0.0.1 sees what goes out.
import { Analytics, ValidationError, type MessageType } from '../../src'
import { Recorder } from '../../src/testing'
import { startTestServer, type TestServer } from '../helpers/test-server'

const METHODS: readonly MessageType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias']

function valid(method: MessageType): Record<string, unknown> {
  if (method === 'track') return { userId: 'u1', event: 'Signed Up' }
  if (method === 'group') return { userId: 'u1', groupId: 'g1' }
  if (method === 'alias') return { userId: 'u1', previousId: 'anon-1' }
  if (method === 'page' || method === 'screen') return { userId: 'u1', name: 'Home' }
  return { userId: 'u1' }
}

/** The rule each field breaks, for `method`, when it holds an object (`got` says which). */
function rule(method: MessageType, field: string, got: string): string {
  if (field === 'event') return `is required and must be a non-empty string (got ${got})`
  if (field === 'name' || field === 'category') return `must be a string (got ${got})`
  if (field === 'messageId') return `must be a non-empty string (got ${got})`
  const required = (method === 'alias' && (field === 'userId' || field === 'previousId')) || (method === 'group' && field === 'groupId')
  return required
    ? `is required and must be a non-empty string or a number (got ${got})`
    : `must be a non-empty string or a finite number (got ${got})`
}

const ID_FIELDS = ['userId', 'anonymousId', 'previousId', 'groupId'] as const
/** Every field a method checks as a string, with the methods that check it. */
const STRING_FIELDS: [string, readonly MessageType[]][] = [
  ...ID_FIELDS.map((field): [string, readonly MessageType[]] => [field, METHODS]),
  ['messageId', METHODS],
  ['event', ['track']],
  ['name', ['page', 'screen']],
  ['category', ['page', 'screen']],
]
const CASES = STRING_FIELDS.flatMap(([field, methods]) => methods.map((method): [MessageType, string] => [method, field]))

const WRONG_VALUES: [string, () => unknown][] = [
  ['a Date', () => new Date('2026-01-02T03:04:05.000Z')],
  ['an object', () => ({ toJSON: () => 'looks-like-an-id' })],
  ['a URL', () => new URL('https://example.com/u1')],
]

let server: TestServer
let analytics: Analytics
beforeEach(async () => {
  server = await startTestServer()
  analytics = new Analytics('k', { host: server.url, flushAt: 100, flushInterval: 0 })
})
afterEach(async () => {
  await analytics.closeAndFlush({ timeout: 1_000 }).catch(() => undefined)
  await server.close()
})

type Send = (message: unknown) => unknown

describe('a string field holding an object is refused, naming the field: the six methods', () => {
  it.each(CASES)('%s refuses %s as a Date, an object with a toJSON or a URL; nothing is sent', async (method, field) => {
    const send = (analytics[method] as unknown as Send).bind(analytics)
    for (const [got, make] of WRONG_VALUES) {
      let thrown: unknown
      try {
        send({ ...valid(method), [field]: make() })
      } catch (err) {
        thrown = err
      }
      expect(thrown).toBeInstanceOf(ValidationError)
      expect(thrown).toEqual(new ValidationError(field, rule(method, field, got), method))
      expect((thrown as Error).message).toBe(`${method}: "${field}" ${rule(method, field, got)}`)
    }
    send({ ...valid(method), messageId: 'the-valid-one' })
    await analytics.flush()
    expect(server.messages.map((m) => m.messageId)).toEqual(['the-valid-one'])
  })

  it('a Date timestamp is still sent as its ISO string; another object with a toJSON is refused', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z')
    analytics.track({ ...valid('track'), event: 'E', timestamp: at } as never)
    expect(() => analytics.track({ userId: 'u1', event: 'E', timestamp: { toJSON: () => at.toISOString() } } as never)).toThrow(
      new ValidationError('timestamp', 'must be a valid Date or an ISO-8601 date-time string (got an object)', 'track'),
    )
    await analytics.flush()
    expect(server.messages.map((m) => m.timestamp)).toEqual(['2026-01-02T03:04:05.000Z'])
  })

  it('still accepts boxed strings and numbers as ids and sends them as strings', async () => {
    analytics.track({ userId: new String('boxed') as never, anonymousId: new Number(7) as never, event: new String('E') as never })
    await analytics.flush()
    expect(server.messages).toEqual([expect.objectContaining({ userId: 'boxed', anonymousId: '7', event: 'E' })])
  })

  it('a field that this method does not check is extra data, sent as JSON writes it', async () => {
    analytics.track({ userId: 'u1', event: 'E', name: new Date('2026-01-02T03:04:05.000Z') } as never)
    await analytics.flush()
    expect(server.messages).toEqual([expect.objectContaining({ name: '2026-01-02T03:04:05.000Z' })])
  })

  it('names what a wrong primitive was', () => {
    expect(() => analytics.identify({ userId: Number.NaN })).toThrow(
      new ValidationError('userId', 'must be a non-empty string or a finite number (got NaN)', 'identify'),
    )
    expect(() => analytics.track({ userId: 'u1', event: true as never })).toThrow(
      new ValidationError('event', 'is required and must be a non-empty string (got a boolean)', 'track'),
    )
    // Absent or blank: the rule alone says what is wrong.
    expect(() => analytics.track({ userId: 'u1', event: ' ' })).toThrow(
      new ValidationError('event', 'is required and must be a non-empty string', 'track'),
    )
  })
})

describe('deliver.* and a Recorder refuse the same', () => {
  it.each(METHODS)('deliver.%s resolves undelivered with the error naming each id field', async (method) => {
    const deliver = analytics.deliver[method] as unknown as (m: unknown) => Promise<{ delivered: boolean; error?: Error }>
    for (const field of ID_FIELDS) {
      const outcome = await deliver({ ...valid(method), [field]: new Date('2026-01-02T03:04:05.000Z') })
      expect(outcome.delivered).toBe(false)
      expect(outcome.error).toEqual(new ValidationError(field, rule(method, field, 'a Date'), method))
    }
    await analytics.flush()
    expect(server.messages).toEqual([])
  })

  it('a client recording with a Recorder refuses a Date userId and records nothing', async () => {
    const recorder = new Recorder()
    const recorded = new Analytics('k', { fetch: recorder.fetch, flushInterval: 0 })
    try {
      expect(() => recorded.group({ userId: 'u1', groupId: new Date() as never })).toThrow(
        new ValidationError('groupId', 'is required and must be a non-empty string or a number (got a Date)', 'group'),
      )
      await recorded.flush()
      expect(recorder.requests).toEqual([])
    } finally {
      await recorded.closeAndFlush()
    }
  })
})
