import { normalizeOptions, DEFAULTS, DEFAULT_HOST } from '../../src/options'
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

  it.each(['ftp://example.com', 'not a url', 'api.segment.io', 42, 'https://example.com/?x=1'])('refuses the host %p', (host) => {
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
})
