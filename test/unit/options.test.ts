import { DEFAULTS, DEFAULT_HOST } from '../../src/config/options'
import { normalizeOptions } from '../../src/config/normalize-options'
import { Analytics, ValidationError } from '../../src'

describe('normalizeOptions', () => {
  it('fills in the defaults of the spec', () => {
    const o = normalizeOptions('key')
    expect(o).toMatchObject({ host: DEFAULT_HOST, flushAt: 20, flushIntervalMs: 10_000, enable: true, errorHandler: undefined })
    expect(DEFAULT_HOST).toBe('https://api.segment.io')
  })

  it.each([undefined, null, '', '   ', 42, {}])('refuses the write key %p, naming it', (key) => {
    expect(() => normalizeOptions(key)).toThrow(ValidationError)
    expect(() => normalizeOptions(key)).toThrow(/"writeKey"/)
  })

  it('refuses a missing write key in the constructor too', () => {
    // @ts-expect-error the write key is required
    expect(() => new Analytics()).toThrow(/"writeKey" is required/)
  })

  it.each([
    ['flushAt', 0],
    ['flushAt', 1.5],
    ['flushAt', '20'],
    ['flushInterval', -1],
    ['flushInterval', Number.NaN],
    ['enable', 'yes'],
    ['errorHandler', 'log'],
    ['fetch', {}],
    ['timeout', 0],
    ['maxRetries', -1],
    ['maxQueueSize', 0],
    ['maxInFlight', 0],
    ['compress', 1],
  ])('refuses %s = %p with an error naming the option', (name, value) => {
    expect(() => normalizeOptions('key', { [name]: value })).toThrow(new RegExp(`"${name}"`))
  })

  it.each(['ftp://example.com', 'not a url', 'api.segment.io', 42])('refuses the host %p', (host) => {
    expect(() => normalizeOptions('key', { host } as never)).toThrow(/"host" must be an http\(s\) URL/)
  })

  it('removes trailing slashes from the host', () => {
    expect(normalizeOptions('key', { host: 'https://events.eu1.segmentapis.com///' }).host).toBe('https://events.eu1.segmentapis.com')
    expect(normalizeOptions('key', { host: 'http://127.0.0.1:4040/prefix/' }).host).toBe('http://127.0.0.1:4040/prefix')
  })

  it('accepts flushInterval 0 (timed flushes off) and flushAt 1', () => {
    expect(normalizeOptions('key', { flushInterval: 0, flushAt: 1 })).toMatchObject({ flushIntervalMs: 0, flushAt: 1 })
  })

  it('keeps the defaults object frozen', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true)
  })

  // Issue 11, item 8: a delay above a timer's limit became a 1 ms timer (every attempt aborted).
  it.each([
    ['timeout', 2 ** 31, 'must be a number from 1 to 2147483647 (milliseconds)'],
    ['timeout', Infinity, 'must be a number from 1 to 2147483647 (milliseconds)'],
    ['retryDelay', 2 ** 31, 'must be a number from 0 to 2147483647 (milliseconds)'],
    ['retryDelay', Infinity, 'must be a number from 0 to 2147483647 (milliseconds)'],
    ['maxRetryDelay', 1e12, 'must be a number from 0 to 2147483647 (milliseconds)'],
    ['maxRetryTime', 2 ** 31, 'must be a number from 0 to 2147483647 (milliseconds, or Infinity for no limit but maxRetries)'],
    ['flushInterval', 2 ** 31, 'must be a number from 0 to 2147483647 (milliseconds, or Infinity for no timed flushes)'],
    ['flushInterval', -Infinity, 'must be a number from 0 to 2147483647 (milliseconds, or Infinity for no timed flushes)'],
  ])('refuses %s = %p at construction: "%s"', (name, value, rule) => {
    expect(() => new Analytics('key', { [name]: value })).toThrow(new ValidationError(name, rule, 'Analytics'))
  })

  it('takes Infinity as "no limit" for maxRetryTime and "no timed flushes" for flushInterval, and 2^31-1 everywhere', () => {
    expect(normalizeOptions('key', { maxRetryTime: Infinity, flushInterval: Infinity })).toMatchObject({
      maxRetryTimeMs: Infinity,
      flushIntervalMs: Infinity,
    })
    const max = 2 ** 31 - 1
    expect(
      normalizeOptions('key', { timeout: max, retryDelay: max, maxRetryDelay: max, maxRetryTime: max, flushInterval: max }),
    ).toMatchObject({ timeoutMs: max, retryBaseMs: max, retryCapMs: max, maxRetryTimeMs: max, flushIntervalMs: max })
  })

  // Issue 11, item 9: the password was in every network error message.
  it.each(['https://user:secret@api.example.com', 'https://user@api.example.com', 'http://:secret@127.0.0.1:4040'])(
    'refuses credentials in the host %s, without echoing them',
    (host) => {
      let error: unknown
      try {
        normalizeOptions('key', { host })
      } catch (err) {
        error = err
      }
      expect(error).toEqual(
        new ValidationError('host', 'must not contain a user name or password (the write key is the only credential)', 'Analytics'),
      )
      expect((error as Error).message).not.toContain('secret')
    },
  )

  // Issue 11, item 10: a bare "?" or "#" passed, and every path was appended to it.
  it.each(['https://api.example.com?', 'https://api.example.com/#', 'https://api.example.com/v?x=1', 'https://api.example.com#top'])(
    'refuses a query string or a fragment in the host %s',
    (host) => {
      expect(() => normalizeOptions('key', { host })).toThrow(
        new ValidationError('host', 'must not contain a query string or a fragment ("?" or "#")', 'Analytics'),
      )
    },
  )
  // Issue 32, part 6: each fallback host is a host, by the same rules; the error names the entry.
  describe('fallbackHosts', () => {
    it('defaults to none, and keeps the hosts in order without their trailing slashes', () => {
      expect(normalizeOptions('key').fallbackHosts).toEqual([])
      const o = normalizeOptions('key', {
        host: 'https://a.example.com',
        fallbackHosts: ['https://b.example.com/', 'http://127.0.0.1:4040/p'],
      })
      expect(o.fallbackHosts).toEqual(['https://b.example.com', 'http://127.0.0.1:4040/p'])
    })

    it.each([
      [
        'not an array',
        'https://b.example.com',
        'fallbackHosts',
        'must be an array of http(s) URLs such as ["https://events.eu1.segmentapis.com"]',
      ],
      [
        'not a URL',
        ['https://b.example.com', 'b.example.com'],
        'fallbackHosts[1]',
        'must be an http(s) URL such as "https://api.segment.io"',
      ],
      ['another scheme', ['ftp://b.example.com'], 'fallbackHosts[0]', 'must be an http(s) URL such as "https://api.segment.io"'],
      ['not a string', [undefined], 'fallbackHosts[0]', 'must be an http(s) URL such as "https://api.segment.io"'],
      [
        'credentials',
        ['https://user:secret@b.example.com'],
        'fallbackHosts[0]',
        'must not contain a user name or password (the write key is the only credential)',
      ],
      ['a query string', ['https://b.example.com?x=1'], 'fallbackHosts[0]', 'must not contain a query string or a fragment ("?" or "#")'],
      [
        'the endpoint',
        ['https://b.example.com/v1/batch'],
        'fallbackHosts[0]',
        'must not end in "/v1/batch": the client adds /v1/batch and /v1/alias itself; write "https://b.example.com"',
      ],
      ['the host again', ['https://a.example.com/'], 'fallbackHosts[0]', 'must differ from "host" and from the other fallback hosts'],
      [
        'a repeat',
        ['https://b.example.com', 'https://b.example.com/'],
        'fallbackHosts[1]',
        'must differ from "host" and from the other fallback hosts',
      ],
    ])('refuses %s, naming the entry and the rule', (_name, fallbackHosts, field, rule) => {
      expect(() => normalizeOptions('key', { host: 'https://a.example.com', fallbackHosts } as never)).toThrow(
        new ValidationError(field, rule, 'Analytics'),
      )
    })

    it('suggests "fallbackHosts" for "fallbackHost"', () => {
      expect(() => normalizeOptions('key', { fallbackHost: ['https://b.example.com'] } as never)).toThrow(/did you mean "fallbackHosts"/)
    })
  })
})
