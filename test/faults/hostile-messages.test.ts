// Issue 11, items 1-7: each bad input gets its exact error (class, field and rule), the valid
// messages sent around it arrive intact, and an accepted one arrives as it was read. A real
// HTTP server on 127.0.0.1 receives what the client sends.
import { Analytics, MessageTooLargeError, ValidationError, type Callback } from '../../src'
import { startTestServer, type TestServer } from '../helpers/test-server'

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

/** Tracks `message` between two valid ones; flushes; returns the callback's error and what arrived. */
async function trackBetween(message: unknown): Promise<{ error: Error | undefined; arrived: any[] }> {
  const track = analytics.track.bind(analytics) as (m: unknown, cb?: Callback) => Analytics
  track({ userId: 'u', event: 'Before', messageId: 'before' })
  const error = new Promise<Error | undefined>((resolve) => track(message, (err) => resolve(err)))
  track({ userId: 'u', event: 'After', messageId: 'after' })
  await analytics.flush()
  const arrived = server.messages
  expect(arrived.filter((m) => m.messageId === 'before' || m.messageId === 'after').map((m) => m.event)).toEqual(['Before', 'After'])
  return { error: await error, arrived: arrived.filter((m) => m.messageId !== 'before' && m.messageId !== 'after') }
}

function fields(target: object): object {
  return Object.assign(target, { userId: 'u', event: 'E' })
}

describe('1. a message that is not a plain object is refused as such, saying what it got', () => {
  it.each([
    ['a RegExp', () => fields(/re/)],
    ['a Promise', () => fields(Promise.resolve())],
    ['a Buffer', () => fields(Buffer.from('{}'))],
    ['a Uint8Array', () => fields(new Uint8Array(1))],
    ['a String object', () => fields(new String('{}'))],
    ['a Map', () => fields(new Map())],
    ['a Set', () => fields(new Set())],
    ['a Date', () => fields(new Date())],
    ['a Generator', () => fields((function* () {})())],
    ['a function', () => fields(() => 1)],
    ['a Point', () => fields(new (class Point {})())],
    ['an array', () => [{ userId: 'u', event: 'E' }]],
    ['a string: parse it first (JSON.parse)', () => '{"userId":"u","event":"E"}'],
    ['a string', () => 'track me'],
    ['null', () => null],
  ])('got %s', async (got, make) => {
    const { error, arrived } = await trackBetween(make())
    expect(error).toEqual(new ValidationError('message', `must be a plain object, got ${got}`, 'track'))
    expect(error).toBeInstanceOf(ValidationError)
    expect(arrived).toEqual([])
  })
})

describe('2. toJSON is honoured once, on the message and on nested values; one that throws is refused naming it', () => {
  it("refuses a message whose own toJSON throws, naming the message's toJSON()", async () => {
    const message = {
      userId: 'u',
      event: 'E',
      toJSON() {
        throw new Error('boom')
      },
    }
    const { error, arrived } = await trackBetween(message)
    expect(error).toEqual(new ValidationError('message', 'could not be serialized: its toJSON() threw Error: boom', 'track'))
    expect(arrived).toEqual([])
  })

  it('refuses a nested toJSON that throws, naming its path', async () => {
    const { error } = await trackBetween({
      userId: 'u',
      event: 'E',
      properties: {
        list: [
          1,
          {
            toJSON() {
              throw new Error('boom')
            },
          },
        ],
      },
    })
    expect(error).toEqual(
      new ValidationError('properties', 'could not be serialized: the toJSON() of properties.list[1] threw Error: boom', 'track'),
    )
  })

  it("sends what the message's toJSON returns, and calls every toJSON once", async () => {
    let calls = 0
    const when = {
      toJSON: () => {
        calls += 1
        return 'then'
      },
    }
    const { error, arrived } = await trackBetween({ toJSON: () => ({ userId: 'from-toJSON', event: 'E', properties: { when } }) })
    expect(error).toBeUndefined()
    expect(arrived).toEqual([expect.objectContaining({ userId: 'from-toJSON', event: 'E', properties: { when: 'then' } })])
    expect(calls).toBe(1)
  })
})

describe('3. every field is read once: what was validated is what is sent', () => {
  it('sends the user id a getter returned on its one read', async () => {
    let reads = 0
    const message = {
      event: 'E',
      get userId() {
        reads += 1
        return reads === 1 ? 'u1' : undefined
      },
      properties: {
        get total() {
          reads += 10
          return 42
        },
      },
    }
    const { error, arrived } = await trackBetween(message)
    expect(error).toBeUndefined()
    expect(arrived).toEqual([expect.objectContaining({ userId: 'u1', event: 'E', properties: { total: 42 } })])
    expect(reads).toBe(11)
  })
})

it('4. integrations: a non-boolean under an own "__proto__" key is refused, naming the key', async () => {
  const integrations = JSON.parse('{"__proto__": {"Mixpanel": true}, "All": false}')
  const { error, arrived } = await trackBetween({ userId: 'u', event: 'E', integrations })
  expect(error).toEqual(new ValidationError('integrations.__proto__', 'must be true or false (got an object)', 'track'))
  expect(arrived).toEqual([])
})

describe('5. a huge value is refused as too large as soon as that is known', () => {
  it('a 10 MB Buffer: refused before its toJSON() copies it', async () => {
    const toJSON = jest.spyOn(Buffer.prototype, 'toJSON')
    try {
      const { error } = await trackBetween({ userId: 'u', event: 'E', properties: { file: Buffer.alloc(10 * 1024 * 1024) } })
      expect(error).toBeInstanceOf(MessageTooLargeError)
      expect(error?.message).toMatch(/^track: "message" is at least \d+ bytes serialized, more than the limit of 32768 bytes$/)
      // Each of its 10,485,760 bytes is at least a digit and a comma in JSON.
      expect((error as MessageTooLargeError).bytes).toBeGreaterThan(2 * 10 * 1024 * 1024)
      expect((error as MessageTooLargeError).isLowerBound).toBe(true)
      expect(toJSON).not.toHaveBeenCalled()
    } finally {
      toJSON.mockRestore()
    }
  })

  it('a 50 MB string: refused as too large, not as "nested too deeply"', async () => {
    const { error } = await trackBetween({ userId: 'u', event: 'E', properties: { text: 'x'.repeat(50 * 1024 * 1024) } })
    expect(error).toBeInstanceOf(MessageTooLargeError)
    expect(error?.message).toMatch(/^track: "message" is at least \d+ bytes serialized, more than the limit of 32768 bytes$/)
  })

  it('an array of a million items: no more of it is read than fits in 32 KB', async () => {
    let reads = 0
    const items = new Proxy(new Array(1_000_000).fill(0), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1
        return Reflect.get(target, key, receiver)
      },
    })
    const { error } = await trackBetween({ userId: 'u', event: 'E', properties: { items } })
    expect(error).toBeInstanceOf(MessageTooLargeError)
    expect(reads).toBe(0)
  })

  it('an object of a hundred thousand fields in an array: refused as too large', async () => {
    const big = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))
    const { error } = await trackBetween({ userId: 'u', event: 'E', properties: { nested: [big] } })
    expect(error).toBeInstanceOf(MessageTooLargeError)
    expect((error as MessageTooLargeError).isLowerBound).toBe(true)
  })
})

it('6. a Date timestamp outside the years 0000-9999 is refused, naming the year', async () => {
  const { error, arrived } = await trackBetween({ userId: 'u', event: 'E', timestamp: new Date(Date.UTC(57_000, 0, 1)) })
  expect(error).toEqual(
    new ValidationError(
      'timestamp',
      'must be a Date between the years 0000 and 9999 (got the year 57000, which the service drops)',
      'track',
    ),
  )
  expect(arrived).toEqual([])
})

describe('7. a getter that throws anything reaches the callback or errorHandler as a ValidationError', () => {
  const symbolGetter = () =>
    Object.defineProperty({ event: 'E' }, 'userId', {
      enumerable: true,
      get: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the issue is about: not an Error
        throw Symbol('nope')
      },
    })
  const toStringGetter = () =>
    Object.defineProperty({ event: 'E' }, 'userId', {
      enumerable: true,
      get: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the issue is about: not an Error
        throw {
          toString() {
            throw new Error('no string')
          },
        }
      },
    })

  it('with a callback: a Symbol', async () => {
    const symbol = await trackBetween(symbolGetter())
    expect(symbol.error).toEqual(new ValidationError('userId', 'could not be read: its getter threw Symbol(nope)', 'track'))
  })

  it('with a callback: an object whose toString throws', async () => {
    const object = await trackBetween(toStringGetter())
    expect(object.error).toEqual(
      new ValidationError('userId', 'could not be read: its getter threw an object that cannot be turned into a string', 'track'),
    )
  })

  it('with errorHandler and no callback; and thrown as a ValidationError with neither', () => {
    const handled: Error[] = []
    const withHandler = new Analytics('k', { enable: false, errorHandler: (err) => handled.push(err) })
    expect(() => withHandler.track(symbolGetter() as never)).not.toThrow()
    expect(handled).toEqual([new ValidationError('userId', 'could not be read: its getter threw Symbol(nope)', 'track')])
    const bare = new Analytics('k', { enable: false })
    expect(() => bare.track(toStringGetter() as never)).toThrow(ValidationError)
  })

  it('a callback that is not a function goes to errorHandler', () => {
    const handled: Error[] = []
    const withHandler = new Analytics('k', { enable: false, errorHandler: (err) => handled.push(err) })
    withHandler.track({ userId: 'u', event: 'E' }, 'not a function' as never)
    expect(handled).toEqual([new ValidationError('callback', 'must be a function, got a string', 'track')])
  })
})
