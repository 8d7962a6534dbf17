import { Analytics, ValidationError } from '../../src'
import { createCollector, type Collector } from '../../src/collector'

// Issue 34, "The public edges found on the way": another SDK's call shapes are honoured or refused
// naming the fix, never silently ignored; `null` means "not given" for every option.
let collector: Collector
beforeEach(async () => {
  collector = await createCollector()
})
afterEach(async () => {
  await collector.close()
})

describe('flush() with options (the @segment/analytics-node call)', () => {
  it('flush({ close: true, timeout }) closes and flushes, as closeAndFlush({ timeout })', async () => {
    const analytics = new Analytics('edge-key', { host: collector.url })
    analytics.track({ userId: 'u1', event: 'Closed' })
    await analytics.flush({ close: true, timeout: 5_000 } as never)
    expect(collector.messages.map((m) => m.message.event)).toEqual(['Closed'])
    const refused: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'After' }, (err) => refused.push(err))
    await new Promise((resolve) => setImmediate(resolve))
    expect(refused.map((e) => e?.name)).toEqual(['ClosedError'])
  })

  it.each<[string, unknown, RegExp]>([
    ['{ timeout } without close', { timeout: 1_000 }, /not options: .*closeAndFlush\(\{ timeout \}\)/],
    ['{ close: false }', { close: false }, /closeAndFlush/],
    ['a number', 1_000, /takes an optional callback \(err, batch\) => void \(got a number\)/],
  ])('flush(%s) is refused naming the fix, and nothing else is lost', async (_name, given, rule) => {
    const analytics = new Analytics('edge-key', { host: collector.url })
    analytics.track({ userId: 'u1', event: 'Kept' })
    const err = (await analytics.flush(given as never).catch((e: unknown) => e)) as ValidationError
    expect(err).toBeInstanceOf(ValidationError)
    expect(err.field).toBe('callback')
    expect(err.message).toMatch(rule)
    await analytics.closeAndFlush()
    expect(collector.messages.map((m) => m.message.event)).toEqual(['Kept'])
  })
})

describe('closeAndFlush() with a bare number', () => {
  it('closeAndFlush(5000) is refused naming { timeout: 5000 }; the client stays open', async () => {
    const analytics = new Analytics('edge-key', { host: collector.url })
    const err = (await analytics.closeAndFlush(5000 as never).catch((e: unknown) => e)) as ValidationError
    expect(err).toBeInstanceOf(ValidationError)
    expect(err.message).toMatch(/closeAndFlush\(\{ timeout: 5000 \}\)/)
    analytics.track({ userId: 'u1', event: 'Still Open' })
    await analytics.closeAndFlush({ timeout: 5_000 })
    expect(collector.messages.map((m) => m.message.event)).toEqual(['Still Open'])
  })
})

describe('null options', () => {
  it.each([
    'host',
    'flushAt',
    'flushInterval',
    'enable',
    'timeout',
    'maxRetries',
    'maxInFlight',
    'errorHandler',
    'fetch',
    'spool',
    'plugins',
    'plan',
    'context',
  ])('%s: null is not given (the default applies)', (option) => {
    const analytics = new Analytics('edge-key', { [option]: null })
    expect(analytics).toBeInstanceOf(Analytics)
    void analytics.closeAndFlush()
  })

  it('flushAt: null and maxInFlight: null take their defaults, and the message is delivered', async () => {
    const analytics = new Analytics('edge-key', { host: collector.url, flushAt: null, maxInFlight: null } as never)
    analytics.track({ userId: 'u1', event: 'Defaults' })
    await analytics.closeAndFlush()
    expect(collector.messages).toHaveLength(1)
  })
})
