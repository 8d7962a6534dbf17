// Acceptance audit of the client against spec/client-library.md, spec/wire-interface.md and
// issues 2 and 4: black-box, through the public API, over real HTTP on 127.0.0.1.
import { Analytics, DeliveryError, type RetryInfo } from '../../src'
import { startTestServer, type TestServer } from '../helpers/test-server'

let server: TestServer

beforeEach(async () => {
  server = await startTestServer()
})

afterEach(async () => {
  await server.close()
})

function outcomeOf(send: (cb: (err?: Error) => void) => void): Promise<Error | undefined> {
  return new Promise((resolve) => send((err) => resolve(err)))
}

describe('what a user expects where the spec is silent', () => {
  it('sends userId 0 as "0" and a past Date timestamp as its ISO-8601 string', async () => {
    const analytics = new Analytics('key', { host: server.url })
    analytics.track({
      userId: 0,
      event: 'Zero',
      timestamp: new Date('2001-02-03T04:05:06.789Z'),
    })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(server.messages[0]).toMatchObject({
      userId: '0',
      event: 'Zero',
      timestamp: '2001-02-03T04:05:06.789Z',
    })
  })

  it('passes integrations through untouched and keeps a messageId the caller gave', async () => {
    const integrations = {
      All: false,
      Mixpanel: true,
      'Google Analytics': true,
      Amplitude: false,
    }
    const analytics = new Analytics('key', { host: server.url })
    analytics.group({
      userId: 'u1',
      groupId: 'g1',
      integrations,
      messageId: 'caller-id-1',
    })
    analytics.alias({
      userId: 'u1',
      previousId: 'anon-1',
      integrations,
      messageId: 'caller-id-2',
    })
    await analytics.flush()
    const group = server.messages.find((m) => m.type === 'group')
    const alias = server.requests.find((r) => r.path === '/v1/alias')?.body
    expect(group).toMatchObject({ messageId: 'caller-id-1', integrations })
    expect(alias).toMatchObject({
      messageId: 'caller-id-2',
      integrations,
      userId: 'u1',
      previousId: 'anon-1',
    })
  })

  it('flush() with nothing queued resolves and gives its callback no error and an empty batch', async () => {
    const analytics = new Analytics('key', { host: server.url })
    const args = await new Promise<unknown[]>((resolve) => void analytics.flush((...a) => resolve(a)))
    expect(args).toEqual([undefined, []])
    await expect(analytics.flush()).resolves.toBeUndefined()
    expect(server.requests).toHaveLength(0)
  })

  it('flush() called from inside a message callback delivers what was queued there', async () => {
    const analytics = new Analytics('key', { host: server.url, flushAt: 100 })
    let inner: Promise<void> | undefined
    analytics.track({ userId: 'u1', event: 'First' }, () => {
      analytics.track({ userId: 'u1', event: 'Second' })
      inner = analytics.flush()
    })
    await analytics.flush()
    await inner
    expect(server.messages.map((m) => m.event)).toEqual(['First', 'Second'])
  })

  it('closeAndFlush() called twice, at once and after, resolves each time and sends each message once', async () => {
    const analytics = new Analytics('key', { host: server.url, flushAt: 100 })
    analytics.track({ userId: 'u1', event: 'A' }).track({ userId: 'u1', event: 'B' })
    await Promise.all([analytics.closeAndFlush(), analytics.closeAndFlush({ timeout: 5000 })])
    await analytics.closeAndFlush()
    expect(server.messages.map((m) => m.event)).toEqual(['A', 'B'])
  })

  it('instances with different hosts send in parallel, each to its own host with its own key', async () => {
    const other = await startTestServer()
    try {
      const a = new Analytics('key-a', { host: server.url })
      const b = new Analytics('key-b', { host: other.url + '/' })
      for (let i = 0; i < 30; i++) {
        a.track({ userId: `a${i}`, event: 'A' })
        b.track({ userId: `b${i}`, event: 'B' })
      }
      await Promise.all([a.flush(), b.flush()])
      expect(server.messages.map((m) => m.event)).toEqual(Array(30).fill('A'))
      expect(other.messages.map((m) => m.event)).toEqual(Array(30).fill('B'))
      const auth = (key: string): string => 'Basic ' + Buffer.from(key + ':').toString('base64')
      expect(new Set(server.requests.map((r) => r.headers.authorization))).toEqual(new Set([auth('key-a')]))
      expect(new Set(other.requests.map((r) => r.headers.authorization))).toEqual(new Set([auth('key-b')]))
    } finally {
      await other.close()
    }
  })

  // Found by the acceptance audit: an empty anonymousId next to a valid userId made track() throw
  // and the event was lost. A blank optional id is now absent and left out of the message.
  it('accepts a message with a valid userId and an empty anonymousId (the identity rule is met)', async () => {
    const analytics = new Analytics('key', { host: server.url })
    analytics.track({ userId: 'u1', anonymousId: '', event: 'Signed In' })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(server.messages[0]).toMatchObject({
      userId: 'u1',
      event: 'Signed In',
    })
    expect(server.messages[0]).not.toHaveProperty('anonymousId')
  })
})

describe('flush rule 4: flushAt 1 turns batching off', () => {
  // Found by the acceptance audit: messages that waited for a free slot went out together ([1, 1, 6, 1, 1]).
  it('a burst of 10 messages with flushAt 1 goes out as 10 requests of one message each', async () => {
    const analytics = new Analytics('key', { host: server.url, flushAt: 1 })
    for (let i = 0; i < 10; i++) analytics.track({ userId: 'u1', event: `E${i}` })
    await analytics.flush()
    expect(server.messages).toHaveLength(10)
    expect(server.requests.map((r) => r.body.batch.length)).toEqual(Array(10).fill(1))
  })
})

describe('Retry-After (issue 4: honoured, with a sane cap)', () => {
  // Found by the acceptance audit: Retry-After was capped at 60 s, the default maxRetryTime, so a
  // Retry-After of 60 s or more was never retried with default options. The cap is now 30 s.
  it('a 429 with Retry-After: 120 is retried after a capped wait, not failed at once', async () => {
    server.respond = (_r, i) => (i === 0 ? [429, { 'retry-after': '120' }] : [200])
    const analytics = new Analytics('key', { host: server.url })
    const retries: RetryInfo[] = []
    analytics.on('retry', (info) => {
      retries.push(info)
      // The wait itself is not the point: end the test without waiting for it.
      void analytics.closeAndFlush({ timeout: 0 }).catch(() => undefined)
    })
    const err = await outcomeOf((cb) => analytics.track({ userId: 'u1', event: 'Throttled' }, cb))
    expect(err).not.toBeInstanceOf(DeliveryError)
    expect(retries).toHaveLength(1)
    expect(retries[0].delayMs).toBeGreaterThan(0)
  })

  it('a 503 with Retry-After: 1 is retried and delivered with the same messageId', async () => {
    server.respond = (_r, i) => (i === 0 ? [503, { 'retry-after': '1' }] : [200])
    const analytics = new Analytics('key', { host: server.url })
    const err = await outcomeOf((cb) => analytics.track({ userId: 'u1', event: 'Later' }, cb))
    expect(err).toBeUndefined()
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1].body.batch[0].messageId).toBe(server.requests[0].body.batch[0].messageId)
  })
})

describe('flush() reports the messages it waited for', () => {
  // Found by the acceptance audit: a flush() called from the callback of a failed message inherited
  // that message's error. Waiters now learn a request's outcome before its callbacks run.
  it('flush() called inside the callback of a failed message resolves when what it waits for is delivered', async () => {
    server.respond = (_r, i) => (i === 0 ? [400] : [200])
    const analytics = new Analytics('key', { host: server.url })
    let inner: Promise<string> | undefined
    analytics.track({ userId: 'u1', event: 'Refused' }, () => {
      analytics.track({ userId: 'u1', event: 'Accepted' })
      inner = analytics.flush().then(
        () => 'resolved',
        (err: Error) => `rejected: ${err.message}`,
      )
    })
    await analytics.flush().catch(() => undefined)
    expect(await inner).toBe('resolved')
    expect(server.messages.map((m) => m.event)).toEqual(['Refused', 'Accepted'])
  })
})
