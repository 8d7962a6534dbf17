import { Analytics, ValidationError } from '../../src'
import { KNOWN_OPTIONS } from '../../src/config/normalize-options'
import { closestName } from '../../src/config/option-mistakes'

// Issue 25: the mistakes a newcomer makes first, and the exact text each one now gets.
function thrownBy(make: () => unknown): string {
  try {
    make()
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError)
    return (err as Error).message
  }
  throw new Error('nothing was thrown')
}

describe('the constructor of @segment/analytics-node, new Analytics({ writeKey })', () => {
  it('is refused with the call to write instead, the other fields as options, and without the key', () => {
    const message = thrownBy(() => new Analytics({ writeKey: 'secret-key', host: 'https://x.test', flushAt: 5 } as never))
    expect(message).toBe(
      'Analytics: "writeKey" must be the first argument, a string: got an object with "writeKey" (the constructor of @segment/analytics-node); write new Analytics(writeKey, { host, flushAt })',
    )
    expect(message).not.toContain('secret-key')
  })

  it('with the write key alone', () => {
    expect(thrownBy(() => new Analytics({ writeKey: 'k' } as never))).toMatch(/write new Analytics\(writeKey\)$/)
  })
})

describe('unknown options', () => {
  it.each([
    ['flushInteval', 'flushInterval'],
    ['flushat', 'flushAt'],
    ['maxRetry', 'maxRetries'],
    ['compresss', 'compress'],
    ['errorhandler', 'errorHandler'],
  ])('%s is refused, naming %s', (typo, meant) => {
    expect(thrownBy(() => new Analytics('k', { [typo]: 1 }))).toBe(`Analytics: "${typo}" is not an option: did you mean "${meant}"?`)
  })

  it('an option of no version (telemetry) is refused, listing the options of this one', () => {
    expect(thrownBy(() => new Analytics('k', { telemetry: true } as never))).toBe(
      `Analytics: "telemetry" is not an option of eventrail 0.1.0; the options are ${KNOWN_OPTIONS.join(', ')}`,
    )
  })

  it.each([
    ['disable', 'write "enable: false"'],
    ['maxEventsInBatch', 'write "flushAt"'],
    ['httpRequestTimeout', 'write "timeout"'],
    ['retryCount', 'write "maxRetries"'],
    ['writeKey', 'the write key is the first argument: new Analytics(writeKey, options)'],
  ])("another SDK's option %s is refused with what to write: %s", (name, fix) => {
    expect(thrownBy(() => new Analytics('k', { [name]: true }))).toBe(
      `Analytics: "${name}" is not an option of this client (it is another SDK's): ${fix}`,
    )
  })

  it('an unknown option set to undefined is ignored (a spread config with a blank field)', () => {
    expect(() => new Analytics('k', { telemetry: undefined } as never)).not.toThrow()
  })

  it('lists every option of AnalyticsOptions and accepts each of them', () => {
    expect(KNOWN_OPTIONS).toContain('waitUntil')
    // The 17 of the first release, plugins, pluginTimeout, context, plan, planMode (issue 24), spool (issue 22), fallbackHosts (issue 32).
    expect(KNOWN_OPTIONS).toEqual(expect.arrayContaining(['plugins', 'pluginTimeout', 'context', 'plan', 'planMode', 'spool', 'fallbackHosts']))
    expect(KNOWN_OPTIONS).toHaveLength(24)
    expect(closestName('Host', KNOWN_OPTIONS)).toBe('host')
    expect(closestName('telemetry', KNOWN_OPTIONS)).toBeUndefined()
  })
})

describe('a host that ends in /v1 (copied from the service docs)', () => {
  it.each([
    ['https://api.segment.io/v1', '/v1', 'https://api.segment.io'],
    ['https://api.segment.io/v1/', '/v1', 'https://api.segment.io'],
    ['https://api.segment.io/v1/batch', '/v1/batch', 'https://api.segment.io'],
    ['http://127.0.0.1:4040/v1/track', '/v1/track', 'http://127.0.0.1:4040'],
    ['https://proxy.example/analytics/v1', '/v1', 'https://proxy.example/analytics'],
  ])('%s is refused at construction, with the host to write', (host, end, bare) => {
    expect(thrownBy(() => new Analytics('k', { host }))).toBe(
      `Analytics: "host" must not end in "${end}": the client adds /v1/batch and /v1/alias itself; write "${bare}"`,
    )
  })

  it('a path prefix that only contains v1 is still accepted', () => {
    expect(() => new Analytics('k', { host: 'https://proxy.example/v1x' })).not.toThrow()
    expect(() => new Analytics('k', { host: 'https://proxy.example/v1/segment' })).not.toThrow()
  })
})

describe('the positional calls of other SDKs', () => {
  const client = (): Analytics => new Analytics('k', { enable: false })

  it.each([
    [
      'identify',
      ['u1', { email: 'ada@example.com' }],
      'got a string then an object, like identify(userId, traits) in other SDKs; write identify({ userId, traits })',
    ],
    [
      'track',
      ['u1', 'Order Completed', { total: 9 }],
      'got a string then a string, like track(userId, event, properties) in other SDKs; write track({ userId, event, properties })',
    ],
    [
      'track',
      ['Order Completed', { total: 9 }],
      'got a string then an object, like track(event, properties) in other SDKs; write track({ userId, event, properties })',
    ],
    [
      'page',
      ['Pricing', { url: '/pricing' }],
      'got a string then an object, like page(name, properties) in other SDKs; write page({ userId, category, name, properties })',
    ],
    [
      'screen',
      ['Settings', { tab: 1 }],
      'got a string then an object, like screen(name, properties) in other SDKs; write screen({ userId, name, properties })',
    ],
    [
      'group',
      [42, { plan: 'pro' }],
      'got a number then an object, like group(groupId, traits) in other SDKs; write group({ userId, groupId, traits })',
    ],
    [
      'alias',
      ['u1', 'anon-7'],
      'got a string then a string, like alias(userId, previousId) in other SDKs; write alias({ userId, previousId })',
    ],
  ])('%s%p says what it recognised and what to write', (method, args, text) => {
    const call = (): unknown => (client() as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args)
    expect(thrownBy(call)).toBe(`${method}: "message" must be one object, not separate arguments: ${text}`)
  })

  it('goes to errorHandler like every refused message when one is set', () => {
    const handled: Error[] = []
    const analytics = new Analytics('k', { enable: false, errorHandler: (err) => handled.push(err) })
    analytics.identify('u1' as never, { email: 'a@b.c' } as never)
    expect(handled.map((e) => [e.name, (e as ValidationError).field])).toEqual([['ValidationError', 'message']])
  })

  it('a message object with a callback that is not a function still blames the callback', () => {
    expect(thrownBy(() => client().track({ userId: 'u', event: 'E' }, {} as never))).toBe(
      'track: "callback" must be a function, got an object',
    )
  })
})
