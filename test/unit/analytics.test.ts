import { Analytics, DeliveryError, ValidationError, MessageTooLargeError, ClosedError } from '../../src'
import type { AnalyticsOptions, Message } from '../../src'
import { recordingFetch, type RecordingFetch } from '../helpers/recording-fetch'
import { aTrack, aTrackOfSize } from '../helpers/messages'

const HOST = 'https://collector.test'

function client(fetch: RecordingFetch, options: AnalyticsOptions = {}) {
  return new Analytics('write-key', { host: HOST, fetch, ...options })
}

/** Lets promise chains that the client started run to their end, with fake timers. */
async function drain(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve()
  await jest.advanceTimersByTimeAsync(0)
}

let unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => process.off('unhandledRejection', onUnhandled))
beforeEach(() => {
  unhandled = []
  jest.useFakeTimers()
})
afterEach(() => {
  jest.useRealTimers()
  expect(unhandled).toEqual([])
})

describe('flush rules', () => {
  it('the first message flushes at once; the second waits for flushInterval', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    analytics.track(aTrack())
    analytics.track(aTrack())
    await drain()
    expect(fetch.bodies).toHaveLength(1)
    await jest.advanceTimersByTimeAsync(9_999)
    expect(fetch.bodies).toHaveLength(1)
    await jest.advanceTimersByTimeAsync(1)
    expect(fetch.bodies).toHaveLength(2)
    expect(fetch.bodies[1].batch).toHaveLength(1)
  })

  it('flushes when flushAt messages are queued', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushAt: 5 })
    analytics.track(aTrack())
    await drain()
    for (let i = 0; i < 4; i++) analytics.track(aTrack())
    await drain()
    expect(fetch.bodies).toHaveLength(1)
    analytics.track(aTrack())
    await drain()
    expect(fetch.bodies).toHaveLength(2)
    expect(fetch.bodies[1].batch).toHaveLength(5)
  })

  it('messages queued in one synchronous run past flushAt share requests, and all of them go', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushAt: 5 })
    analytics.track(aTrack())
    await drain()
    for (let i = 0; i < 23; i++) analytics.track(aTrack())
    expect(fetch.bodies).toHaveLength(1) // the request starts after the run of calls, not in it
    await drain()
    expect(fetch.bodies.map((b) => b.batch.length)).toEqual([1, 23])
  })

  it('messages queued after a flushAt flush wait for the next flushAt or flushInterval', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushAt: 5, flushInterval: 1000 })
    analytics.track(aTrack())
    await drain()
    for (let i = 0; i < 5; i++) analytics.track(aTrack())
    await drain()
    for (let i = 0; i < 4; i++) analytics.track(aTrack())
    await drain()
    expect(fetch.bodies.map((b) => b.batch.length)).toEqual([1, 5])
    await jest.advanceTimersByTimeAsync(1000)
    expect(fetch.bodies.map((b) => b.batch.length)).toEqual([1, 5, 4])
  })

  it('flushAt: 1 sends every message at once, each in its own request', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushAt: 1 })
    for (let i = 0; i < 3; i++) analytics.track(aTrack())
    await drain()
    expect(fetch.bodies.map((b) => b.batch.length)).toEqual([1, 1, 1])
  })

  it('times the interval from the last flush', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushInterval: 1000 })
    analytics.track(aTrack())
    await jest.advanceTimersByTimeAsync(600)
    analytics.track(aTrack())
    await jest.advanceTimersByTimeAsync(399)
    expect(fetch.bodies).toHaveLength(1)
    await jest.advanceTimersByTimeAsync(1)
    expect(fetch.bodies).toHaveLength(2)
  })

  it('flushInterval: 0 turns timed flushes off', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushInterval: 0 })
    analytics.track(aTrack()).track(aTrack())
    await jest.advanceTimersByTimeAsync(60_000)
    expect(fetch.bodies).toHaveLength(1)
    await analytics.flush()
    expect(fetch.bodies).toHaveLength(2)
  })

  it('holds no timer once everything is flushed', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    analytics.track(aTrack()).track(aTrack())
    await analytics.flush()
    expect(jest.getTimerCount()).toBe(0)
  })
})

describe('flush()', () => {
  it('sends everything queued and resolves with the callback run', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    analytics.track(aTrack())
    for (let i = 0; i < 3; i++) analytics.identify({ userId: `u${i}` })
    const callback = jest.fn()
    await analytics.flush(callback)
    expect(fetch.messages).toHaveLength(4)
    expect(callback).toHaveBeenCalledTimes(1)
    expect(callback.mock.calls[0][0]).toBeUndefined()
    expect((callback.mock.calls[0][1] as Message[]).map((m) => m.type)).toEqual(['track', 'identify', 'identify', 'identify'])
  })

  it('resolves at once when nothing is queued', async () => {
    const fetch = recordingFetch()
    await expect(client(fetch).flush()).resolves.toBeUndefined()
    expect(fetch.requests).toHaveLength(0)
  })

  it('waits for messages already in flight from an automatic flush', async () => {
    const releases: Array<() => void> = []
    const fetch = recordingFetch()
    const slow = (async (url: string, init: any) => {
      await new Promise<void>((resolve) => releases.push(resolve))
      return fetch(url, init)
    }) as unknown as RecordingFetch
    const analytics = new Analytics('k', { host: HOST, fetch: slow, flushAt: 1 })
    const delivered = jest.fn()
    analytics.track(aTrack(), delivered)
    let flushed = false
    const flushing = analytics.flush().then(() => (flushed = true))
    await drain()
    expect(flushed).toBe(false)
    releases.forEach((release) => release())
    await flushing
    expect(delivered).toHaveBeenCalledTimes(1)
    expect(flushed).toBe(true)
  })

  it('honours overlapping flush calls: each waits for what was queued before it', async () => {
    const releases: Array<() => void> = []
    const fetch = recordingFetch()
    const slow = (async (url: string, init: any) => {
      await new Promise<void>((resolve) => releases.push(resolve))
      return fetch(url, init)
    }) as unknown as RecordingFetch
    const analytics = new Analytics('k', { host: HOST, fetch: slow, maxInFlight: 1 })
    analytics.track(aTrack())
    const first = analytics.flush()
    analytics.track(aTrack())
    const second = analytics.flush()
    const order: string[] = []
    void first.then(() => order.push('first'))
    void second.then(() => order.push('second'))
    await drain()
    expect(releases).toHaveLength(1)
    releases[0]()
    await first
    expect(order).toEqual(['first'])
    await drain()
    expect(releases).toHaveLength(2)
    releases[1]()
    await second
    expect(order).toEqual(['first', 'second'])
    expect(fetch.messages).toHaveLength(2)
  })
})

describe('callbacks', () => {
  it('calls each message callback exactly once, after delivery, with its request batch', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { flushAt: 3 })
    const callbacks = [jest.fn(), jest.fn(), jest.fn(), jest.fn()]
    callbacks.forEach((cb) => analytics.track(aTrack(), cb))
    await analytics.flush()
    await drain()
    for (const cb of callbacks) {
      expect(cb).toHaveBeenCalledTimes(1)
      expect(cb.mock.calls[0][0]).toBeUndefined()
    }
    const batch = callbacks[1].mock.calls[0][1] as Message[]
    expect(batch.map((m) => m.messageId)).toEqual(fetch.bodies[1].batch.map((m: Message) => m.messageId))
  })

  it('a throwing callback does not disturb the others', async () => {
    const fetch = recordingFetch()
    const errorHandler = jest.fn()
    const analytics = client(fetch, { flushAt: 2, errorHandler })
    analytics.track(aTrack())
    await drain()
    const second = jest.fn()
    analytics.track(aTrack(), () => {
      throw new Error('boom')
    })
    analytics.track(aTrack(), second)
    await analytics.flush()
    expect(second).toHaveBeenCalledTimes(1)
    expect(errorHandler).toHaveBeenCalledWith(expect.objectContaining({ message: 'boom' }))
  })
})

describe('errors', () => {
  it('without errorHandler a failed flush rejects with a DeliveryError carrying the status', async () => {
    const fetch = recordingFetch(() => 400)
    const analytics = client(fetch)
    const cb = jest.fn()
    analytics.track(aTrack(), cb)
    const error = await analytics.flush().catch((err: unknown) => err)
    expect(error).toBeInstanceOf(DeliveryError)
    expect((error as DeliveryError).status).toBe(400)
    expect(cb).toHaveBeenCalledWith(error, expect.any(Array))
  })

  it('with errorHandler a failed request goes to it once and flush resolves', async () => {
    const fetch = recordingFetch(() => 400)
    const errorHandler = jest.fn()
    const analytics = client(fetch, { errorHandler })
    analytics.track(aTrack()).track(aTrack())
    await expect(analytics.flush()).resolves.toBeUndefined()
    expect(fetch.requests).toHaveLength(2)
    expect(errorHandler).toHaveBeenCalledTimes(2)
    expect(errorHandler.mock.calls[0][0]).toBeInstanceOf(DeliveryError)
  })

  it('a flush callback gets the error and the promise resolves', async () => {
    const fetch = recordingFetch(() => 401)
    const analytics = client(fetch)
    analytics.track(aTrack())
    const cb = jest.fn()
    await expect(analytics.flush(cb)).resolves.toBeUndefined()
    expect(cb.mock.calls[0][0]).toBeInstanceOf(DeliveryError)
  })

  it('a background flush that fails never rejects into the void', async () => {
    const fetch = recordingFetch(() => new Error('ECONNREFUSED'))
    const analytics = client(fetch, { retryDelay: 1 })
    analytics.track(aTrack())
    await jest.advanceTimersByTimeAsync(10_000)
    // The default maxRetries: 10 retries after the first attempt.
    expect(fetch.requests).toHaveLength(11)
    expect(analytics.stats()).toMatchObject({ failed: 1, retried: 10, queued: 0, inFlight: 0 })
  })

  it('a later flush reports a failure of messages it covered', async () => {
    const fetch = recordingFetch(() => 500)
    const analytics = client(fetch, { retryDelay: 1 })
    analytics.track(aTrack())
    const flushing = analytics.flush().catch((err: unknown) => err)
    await jest.advanceTimersByTimeAsync(10_000)
    expect(await flushing).toMatchObject({ name: 'DeliveryError', status: 500, attempts: 11 })
  })
})

describe('timeouts', () => {
  it('aborts an attempt after timeout ms, even when the fetch ignores its signal, and retries it', async () => {
    let calls = 0
    const hanging = (async () => {
      calls += 1
      return new Promise(() => undefined)
    }) as unknown as RecordingFetch
    const analytics = new Analytics('k', { host: HOST, fetch: hanging, timeout: 500, maxRetries: 1, retryDelay: 1 })
    const cb = jest.fn()
    analytics.track(aTrack(), cb)
    await jest.advanceTimersByTimeAsync(499)
    expect(calls).toBe(1)
    await jest.advanceTimersByTimeAsync(2)
    await jest.advanceTimersByTimeAsync(10)
    expect(calls).toBe(2)
    await jest.advanceTimersByTimeAsync(600)
    expect(cb).toHaveBeenCalledTimes(1)
    expect(cb.mock.calls[0][0]).toBeInstanceOf(DeliveryError)
    expect(cb.mock.calls[0][0].message).toMatch(/timed out after 500 ms/)
  })
})

describe('refused messages', () => {
  it('an invalid message without callback or errorHandler throws and queues nothing', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    // @ts-expect-error event is required
    expect(() => analytics.track({ userId: 'u' })).toThrow(ValidationError)
    await analytics.flush()
    expect(fetch.requests).toHaveLength(0)
    expect(analytics.stats().dropped).toBe(1)
  })

  it('an invalid message with a callback gets the error there, once, and nothing throws', async () => {
    const analytics = client(recordingFetch())
    const cb = jest.fn()
    // @ts-expect-error identity is required
    expect(() => analytics.identify({ traits: {} }, cb)).not.toThrow()
    await drain()
    expect(cb).toHaveBeenCalledTimes(1)
    expect(cb.mock.calls[0][0]).toBeInstanceOf(ValidationError)
    expect(cb.mock.calls[0][0].message).toMatch(/identify: "userId" or "anonymousId" is required/)
  })

  it('an invalid message without callback goes to errorHandler', () => {
    const errorHandler = jest.fn()
    const analytics = client(recordingFetch(), { errorHandler })
    // @ts-expect-error groupId is required
    analytics.group({ userId: 'u' })
    expect(errorHandler).toHaveBeenCalledWith(expect.objectContaining({ field: 'groupId' }))
  })

  it('a 40 KB message is refused, never sent, and the others are', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    const cb = jest.fn()
    analytics.track(aTrack())
    analytics.track(aTrackOfSize(40 * 1024), cb)
    analytics.track(aTrack())
    await analytics.flush()
    await drain()
    expect(cb.mock.calls[0][0]).toBeInstanceOf(MessageTooLargeError)
    expect(fetch.messages).toHaveLength(2)
  })

  it('after closeAndFlush, message methods get a ClosedError in their callback', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    analytics.track(aTrack())
    await analytics.closeAndFlush()
    const cb = jest.fn()
    analytics.track(aTrack(), cb)
    await drain()
    expect(cb.mock.calls[0][0]).toBeInstanceOf(ClosedError)
    expect(fetch.messages).toHaveLength(1)
  })
})

describe('each method', () => {
  it('sends identify, track, page, screen and group in /v1/batch and alias to /v1/alias', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch)
    analytics
      .identify({ userId: 'u', traits: { name: 'Ada' } })
      .track({ userId: 'u', event: 'Signed Up', properties: { plan: 'pro' } })
      .page({ anonymousId: 'a', category: 'Docs', name: 'Intro', properties: { url: 'https://x.test/intro' } })
      .screen({ userId: 'u', name: 'Home' })
      .group({ userId: 'u', groupId: 'g1', traits: { size: 5 } })
      .alias({ previousId: 'a', userId: 'u' })
    await analytics.flush()
    const batched = fetch.requests.filter((r) => r.url === `${HOST}/v1/batch`).flatMap((r) => r.body.batch)
    expect(batched.map((m: Message) => m.type)).toEqual(['identify', 'track', 'page', 'screen', 'group'])
    const aliases = fetch.requests.filter((r) => r.url === `${HOST}/v1/alias`)
    expect(aliases).toHaveLength(1)
    expect(aliases[0].body).toMatchObject({ type: 'alias', previousId: 'a', userId: 'u', sentAt: expect.any(String) })
    expect(batched[2]).toMatchObject({ category: 'Docs', name: 'Intro', properties: { url: 'https://x.test/intro' } })
    for (const r of fetch.requests) {
      expect(r.headers.Authorization).toBe('Basic ' + Buffer.from('write-key:').toString('base64'))
      expect(r.headers['Content-Type']).toBe('application/json')
      expect(r.headers['User-Agent']).toMatch(/^eventrail\//)
    }
  })

  it('returns the instance from every message method', () => {
    const analytics = client(recordingFetch())
    expect(analytics.track(aTrack())).toBe(analytics)
    expect(analytics.alias({ userId: 'a', previousId: 'b' })).toBe(analytics)
  })
})

describe('enable: false', () => {
  it('sends nothing, yet callbacks and flush complete', async () => {
    const fetch = recordingFetch()
    const analytics = client(fetch, { enable: false })
    const cb = jest.fn()
    analytics.track(aTrack(), cb).identify({ userId: 'u' })
    await analytics.flush()
    expect(cb).toHaveBeenCalledWith(undefined, expect.any(Array))
    expect(fetch.requests).toHaveLength(0)
  })

  it('reports no request: no flush event, and sent and requests stay 0', async () => {
    const analytics = client(recordingFetch(), { enable: false })
    const flushes: unknown[] = []
    analytics.on('flush', (info) => flushes.push(info))
    analytics.track(aTrack()).track(aTrack())
    await analytics.flush()
    expect(flushes).toEqual([])
    expect(analytics.stats()).toMatchObject({ sent: 0, requests: 0, queued: 0, inFlight: 0 })
  })

  it('still validates', () => {
    const analytics = client(recordingFetch(), { enable: false })
    // @ts-expect-error event is required
    expect(() => analytics.track({ userId: 'u' })).toThrow(ValidationError)
  })
})

describe('several instances', () => {
  it('keep their own write keys, hosts and queues', async () => {
    const fetchA = recordingFetch()
    const fetchB = recordingFetch()
    const a = new Analytics('key-a', { host: 'https://a.test', fetch: fetchA })
    const b = new Analytics('key-b', { host: 'https://b.test', fetch: fetchB, flushAt: 1 })
    a.track(aTrack()).track(aTrack())
    b.track(aTrack())
    await Promise.all([a.flush(), b.flush()])
    expect(fetchA.messages).toHaveLength(2)
    expect(fetchB.messages).toHaveLength(1)
    expect(fetchA.requests.every((r) => r.url.startsWith('https://a.test/') && r.headers.Authorization === 'Basic a2V5LWE6')).toBe(true)
    expect(fetchB.requests.every((r) => r.url.startsWith('https://b.test/') && r.headers.Authorization === 'Basic a2V5LWI6')).toBe(true)
  })
})

describe('a failure of the runtime, not of the message', () => {
  afterEach(() => jest.restoreAllMocks())

  it('is reported as an EventrailError that does not blame the message, to its callback', async () => {
    const fetch = recordingFetch(() => 200)
    const analytics = client(fetch)
    jest.spyOn(JSON, 'stringify').mockImplementationOnce(() => {
      throw new RangeError('Invalid string length')
    })
    const cb = jest.fn()
    analytics.track(aTrack(), cb)
    await jest.advanceTimersByTimeAsync(0)
    const [error] = cb.mock.calls[0] as [Error]
    expect(error).not.toBeInstanceOf(ValidationError)
    expect(error.name).toBe('EventrailError')
    expect(error.message).toBe('track: the message could not be serialized by the runtime (RangeError: Invalid string length)')
  })
})

describe('closeAndFlush({ timeout })', () => {
  it.each([-1, NaN, 2 ** 31, '5s'])('refuses a timeout of %p, naming the rule', async (timeout) => {
    const analytics = client(recordingFetch(() => 200))
    await expect(analytics.closeAndFlush({ timeout: timeout as number })).rejects.toThrow(
      'closeAndFlush: "timeout" must be a number from 0 to 2147483647 (milliseconds), or Infinity for no limit',
    )
  })

  it('takes Infinity as no limit', async () => {
    const fetch = recordingFetch(() => 200)
    const analytics = client(fetch)
    analytics.track(aTrack())
    const closing = analytics.closeAndFlush({ timeout: Infinity })
    await jest.advanceTimersByTimeAsync(10)
    await expect(closing).resolves.toBeUndefined()
    expect(fetch.requests).toHaveLength(1)
  })
})
