// Regression tests for the bugs the fault suites found in src before release (see CHANGELOG, Fixed).
import { Analytics, ValidationError } from '../../src'
import { startFaultServer, until, type FaultServer } from './fault-server'

let server: FaultServer
afterEach(async () => server.close())

it('retries count against maxRequestsPerSecond', async () => {
  // When each attempt arrived (by the server's clock): a slow machine only makes the gaps longer.
  const arrivedAt: number[] = []
  server = await startFaultServer((i) => {
    arrivedAt.push(performance.now())
    return i < 2 ? { kind: 'status', status: 503 } : { kind: 'status', status: 200 }
  })
  const a = new Analytics('k', { host: server.url, flushAt: 1, maxRequestsPerSecond: 2, retryDelay: 0, maxRetryDelay: 0, maxRetries: 10 })
  a.track({ userId: 'u', event: 'e' })
  await until(() => server.accepted.size === 1, 10_000, 'the third attempt')
  // 2 requests per second allowed: the first attempt and one retry at once; the second retry waits
  // for the first attempt to leave the window, a second after it started. Without the limit it
  // would follow within a few ms; the margin is for the way to the server on a loaded machine.
  expect(server.arrivals).toBe(3)
  expect(arrivedAt[2] - arrivedAt[0]).toBeGreaterThan(500)
  await a.closeAndFlush({ timeout: 3_000 }).catch(() => undefined)
})

it('one attempt is cut to what is left of maxRetryTime', async () => {
  server = await startFaultServer(() => ({ kind: 'hang' }))
  const a = new Analytics('k', { host: server.url, flushAt: 1, timeout: 5_000, maxRetryTime: 300, errorHandler: () => undefined })
  let err: Error | undefined
  a.track({ userId: 'u', event: 'e' }, (e) => (err = e))
  await new Promise((r) => setTimeout(r, 1_500))
  // maxRetryTime 300 ms: the request should have failed for good long before 1.5 s. Today it waits the whole 5 s timeout.
  expect(err).toBeDefined()
  await a.closeAndFlush({ timeout: 100 })
})

describe('a toJSON on the message does not replace the message on the wire', () => {
  it('track: the batch item arrives as a string, without type or messageId', async () => {
    server = await startFaultServer()
    const a = new Analytics('k', { host: server.url, flushAt: 1 })
    let err: Error | undefined | null = null
    a.track({ userId: 'u', event: 'e', messageId: 'm1', toJSON: () => 'not a message' } as never, (e) => (err = e))
    await a.flush().catch(() => undefined)
    // Either refused with a ValidationError, or sent as a message object.
    if (err === undefined) expect(server.acceptedMessages).toEqual([expect.objectContaining({ messageId: 'm1', type: 'track' })])
    else expect(err).toBeInstanceOf(ValidationError)
  })
  it('alias: the toJSON() is honoured, and what it returns (not a message) is refused, never sent', async () => {
    server = await startFaultServer()
    const errors: Error[] = []
    const a = new Analytics('k', { host: server.url, flushAt: 1, errorHandler: (err) => errors.push(err) })
    a.alias({ userId: 'u', previousId: 'p', toJSON: () => 'x' } as never)
    await a.flush()
    expect(errors.map((e) => e.message)).toEqual(['alias: "message" must be a plain object, its toJSON() returned a string'])
    expect(server.requests).toEqual([])
  })
})

it('properties / traits / context with a toJSON are refused, never sent as a non-object', async () => {
  server = await startFaultServer()
  const a = new Analytics('k', { host: server.url, flushAt: 1 })
  const errors: (Error | undefined)[] = []
  a.track({ userId: 'u', event: 'e', messageId: 'p1', properties: { toJSON: () => 'flat' } }, (e) => errors.push(e))
  a.alias({ userId: 'u', previousId: 'p', messageId: 'c1', context: { toJSON: () => 'flat' } }, (e) => errors.push(e))
  await a.flush().catch(() => undefined)
  await until(() => errors.length === 2)
  // Refused with a ValidationError naming the field, never sent as a non-object.
  expect(errors.map((e) => e instanceof ValidationError && e.field)).toEqual(['properties', 'context'])
  expect(server.acceptedMessages).toEqual([])
})

it('ids that are inherited or not enumerable do not count for validation, as they are not sent', async () => {
  server = await startFaultServer()
  const a = new Analytics('k', { host: server.url, flushAt: 1 })
  const results: (Error | undefined)[] = []
  a.track(Object.create({ userId: 'u', event: 'e', messageId: 'inh' }), (e) => results.push(e))
  a.track(Object.defineProperty({ event: 'e', messageId: 'hid' }, 'userId', { value: 'u', enumerable: false }) as never, (e) =>
    results.push(e),
  )
  await a.flush().catch(() => undefined)
  await until(() => results.length === 2)
  for (const m of server.acceptedMessages) {
    // Whatever is accepted must carry the identity and the event it was validated with.
    expect(m.userId ?? m.anonymousId).toBeTruthy()
    expect(m.event).toBeTruthy()
  }
})

it('a timestamp on a day that does not exist is refused', async () => {
  server = await startFaultServer()
  const a = new Analytics('k', { host: server.url, flushAt: 1 })
  let err: Error | undefined | null = null
  a.track({ userId: 'u', event: 'e', timestamp: '2024-02-30T00:00:00Z' }, (e) => (err = e))
  a.track({ userId: 'u', event: 'e', timestamp: '2023-04-31' }, () => undefined)
  await a.flush().catch(() => undefined)
  expect(err).toBeInstanceOf(ValidationError) // today: accepted and sent as "2024-02-30T00:00:00Z"
})
