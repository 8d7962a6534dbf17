import { DeliveryError, ValidationError, type Delivery } from '../../src'
import { faultSession } from './session'

// The awaitable message methods (analytics.deliver.*) and the waitUntil option, over real HTTP.

const { server, client } = faultSession('await-key')

describe('analytics.deliver', () => {
  it('resolves with delivered and the messageId once the service accepted the message, for all six types', async () => {
    const s = await server()
    const analytics = client(s)
    const outcomes = await Promise.all([
      analytics.deliver.identify({ userId: 'u1', traits: { plan: 'pro' } }),
      analytics.deliver.track({ userId: 'u1', event: 'Bought', messageId: 'my-id' }),
      analytics.deliver.page({ userId: 'u1', name: 'Home' }),
      analytics.deliver.screen({ userId: 'u1', name: 'Home' }),
      analytics.deliver.group({ userId: 'u1', groupId: 'g1' }),
      analytics.deliver.alias({ userId: 'u1', previousId: 'a1' }),
    ])
    expect(outcomes.every((o) => o.delivered)).toBe(true)
    expect(outcomes[1].messageId).toBe('my-id')
    expect([...s.accepted.keys()].sort()).toEqual(outcomes.map((o) => o.messageId).sort())
  })

  it('resolves, never rejects, with the ValidationError of a refused message', async () => {
    const s = await server()
    const analytics = client(s)
    const outcome = await analytics.deliver.track({ userId: 'u1' } as never)
    expect(outcome.delivered).toBe(false)
    expect((outcome as Extract<Delivery, { delivered: false }>).error).toBeInstanceOf(ValidationError)
    expect(s.arrivals).toBe(0)
  })

  it('resolves with the DeliveryError of a request that failed for good, after its retries', async () => {
    const s = await server(() => ({ kind: 'status', status: 503 }))
    const analytics = client(s, { maxRetries: 2 })
    const outcome = await analytics.deliver.track({ userId: 'u1', event: 'E' })
    expect(outcome).toMatchObject({ delivered: false, messageId: expect.any(String), error: expect.any(DeliveryError) })
    expect(s.arrivals).toBe(3)
  })

  it('has an awaited message sent right after the run of calls, not after flushInterval', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 1000, flushInterval: 600_000 })
    analytics.track({ userId: 'u1', event: 'First' }) // the first message goes at once
    analytics.track({ userId: 'u1', event: 'Queued' }) // waits for flushAt or flushInterval
    const outcome = await analytics.deliver.track({ userId: 'u1', event: 'Awaited' })
    expect(outcome.delivered).toBe(true)
    expect(s.accepted.size).toBe(3)
  })

  it('settles once for each message even when the same request carries many', async () => {
    const s = await server()
    const analytics = client(s, { flushAt: 100 })
    const pending = Array.from({ length: 50 }, (_, i) => analytics.deliver.track({ userId: `u${i}`, event: 'E' }))
    await analytics.flush()
    const outcomes = await Promise.all(pending)
    expect(new Set(outcomes.map((o) => o.messageId)).size).toBe(50)
    expect(outcomes.every((o) => o.delivered)).toBe(true)
  })
})

describe('waitUntil', () => {
  it('hands the platform a flush of what one run of calls queued, which settles when each has an outcome', async () => {
    const s = await server(() => ({ kind: 'delay', ms: 30 }))
    const kept: Promise<unknown>[] = []
    const analytics = client(s, { flushAt: 1000, flushInterval: 60_000, waitUntil: (p) => kept.push(p) })
    analytics.track({ userId: 'u1', event: 'First' })
    for (let i = 0; i < 10; i++) analytics.track({ userId: 'u1', event: `E${i}` })
    analytics.alias({ userId: 'u1', previousId: 'a1' })
    // The handler returns here without awaiting: the platform holds the promise.
    await new Promise((resolve) => setImmediate(resolve))
    expect(kept).toHaveLength(1)
    await Promise.all(kept)
    expect(s.accepted.size).toBe(12)
    expect(analytics.stats().queued + analytics.stats().inFlight).toBe(0)
  })

  it('reports a waitUntil that throws to errorHandler, and still sends', async () => {
    const s = await server()
    const errors: Error[] = []
    const analytics = client(s, {
      waitUntil: () => {
        throw new Error('no request context')
      },
      errorHandler: (err) => errors.push(err),
    })
    analytics.track({ userId: 'u1', event: 'E' })
    await analytics.flush()
    expect(errors.map((e) => e.message)).toEqual(['no request context'])
    expect(s.accepted.size).toBe(1)
  })
})
