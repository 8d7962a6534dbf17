import { validateMessage as validateSnapshot, isValidTimestamp } from '../../src/message/validate'
import { snapshotMessage } from '../../src/message/snapshot'
import { ValidationError } from '../../src'
import type { MessageType } from '../../src'

/** What the client does: read the message once, then validate what was read. */
function validateMessage(type: MessageType, message: unknown): void {
  validateSnapshot(type, snapshotMessage(type, message))
}

const IDENTIFIED: MessageType[] = ['identify', 'track', 'page', 'screen', 'group']

function base(type: MessageType): Record<string, unknown> {
  if (type === 'track') return { userId: 'u', event: 'E' }
  if (type === 'group') return { userId: 'u', groupId: 'g' }
  if (type === 'alias') return { userId: 'u', previousId: 'p' }
  return { userId: 'u' }
}

function errorOf(type: MessageType, message: unknown): ValidationError {
  try {
    validateMessage(type, message)
  } catch (err) {
    return err as ValidationError
  }
  throw new Error('expected a ValidationError')
}

describe('validateMessage', () => {
  it.each(['identify', 'track', 'page', 'screen', 'group', 'alias'] as MessageType[])('accepts a minimal %s', (type) => {
    expect(() => validateMessage(type, base(type))).not.toThrow()
  })

  it.each(IDENTIFIED)('%s requires userId or anonymousId', (type) => {
    const { userId: _drop, ...rest } = base(type)
    const err = errorOf(type, rest)
    expect(err).toBeInstanceOf(ValidationError)
    expect(err.field).toBe('userId')
    expect(err.message).toBe(`${type}: "userId" or "anonymousId" is required (a non-empty string or a number)`)
  })

  it.each(IDENTIFIED)('%s accepts anonymousId alone, and numeric ids', (type) => {
    const { userId: _drop, ...rest } = base(type)
    expect(() => validateMessage(type, { ...rest, anonymousId: 'a' })).not.toThrow()
    expect(() => validateMessage(type, { ...rest, userId: 42 })).not.toThrow()
  })

  it.each([[''], ['  '], [Number.NaN], [{}], [true]])('refuses the userId %p', (userId) => {
    expect(errorOf('identify', { userId }).field).toBe('userId')
  })

  it('track requires a non-empty event', () => {
    expect(errorOf('track', { userId: 'u' }).message).toBe('track: "event" is required and must be a non-empty string')
    expect(errorOf('track', { userId: 'u', event: '' }).field).toBe('event')
    expect(errorOf('track', { userId: 'u', event: 7 }).field).toBe('event')
  })

  it('group requires groupId', () => {
    expect(errorOf('group', { userId: 'u' }).field).toBe('groupId')
    expect(() => validateMessage('group', { userId: 'u', groupId: 12 })).not.toThrow()
  })

  it('alias requires both userId and previousId', () => {
    expect(errorOf('alias', { previousId: 'p' }).field).toBe('userId')
    expect(errorOf('alias', { userId: 'u' }).field).toBe('previousId')
    expect(errorOf('alias', { anonymousId: 'a', previousId: 'p' }).field).toBe('userId')
  })

  it.each(['traits', 'properties', 'context', 'integrations'])('%s must be an object', (field) => {
    const values: [unknown, string][] = [
      ['x', 'a string'],
      [3, 'a number'],
      [[1], 'an array'],
      [true, 'a boolean'],
      [new Date(), 'a Date'],
      [new Map(), 'a Map'],
      [new String('s'), 'a String object'],
      [Buffer.from('b'), 'a Buffer'],
    ]
    for (const [value, got] of values) {
      const err = errorOf('track', { ...base('track'), [field]: value })
      expect(err.field).toBe(field)
      expect(err.rule).toBe(`must be an object, got ${got}`)
    }
    expect(() => validateMessage('track', { ...base('track'), [field]: {} })).not.toThrow()
  })

  it('integrations values are booleans, whatever the key', () => {
    expect(() =>
      validateMessage('track', { ...base('track'), integrations: { All: false, Mixpanel: true, Amplitude: false } }),
    ).not.toThrow()
    expect(errorOf('track', { ...base('track'), integrations: { Amplitude: { x: 1 } } }).message).toBe(
      'track: "integrations.Amplitude" must be true or false (got an object)',
    )
    expect(errorOf('track', { ...base('track'), integrations: { Mixpanel: 'yes' } }).message).toBe(
      'track: "integrations.Mixpanel" must be true or false (got a string)',
    )
    expect(errorOf('track', { ...base('track'), integrations: { Mixpanel: [true] } }).field).toBe('integrations.Mixpanel')
    expect(errorOf('track', { ...base('track'), integrations: { All: {} } }).message).toBe(
      'track: "integrations.All" must be true or false (got an object)',
    )
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "All": false}')
    expect(errorOf('track', { ...base('track'), integrations: parsed }).message).toBe(
      'track: "integrations.__proto__" must be true or false (got an object)',
    )
  })

  it('page and screen take string name and category', () => {
    expect(() => validateMessage('page', { userId: 'u', name: 'Home', category: 'Docs' })).not.toThrow()
    expect(errorOf('page', { userId: 'u', name: 3 }).field).toBe('name')
    expect(errorOf('screen', { userId: 'u', category: {} }).field).toBe('category')
  })

  it('refuses a Date timestamp outside the years 0000-9999, naming the year', () => {
    const err = errorOf('track', { ...base('track'), timestamp: new Date(Date.UTC(57000, 0, 1)) })
    expect(err.message).toBe(
      'track: "timestamp" must be a Date between the years 0000 and 9999 (got the year 57000, which the service drops)',
    )
    expect(errorOf('track', { ...base('track'), timestamp: new Date('-000001-06-01T00:00:00Z') }).field).toBe('timestamp')
    expect(() => validateMessage('track', { ...base('track'), timestamp: new Date('0000-01-01T00:00:00Z') })).not.toThrow()
  })

  it('timestamp must be a valid Date or ISO-8601 string', () => {
    expect(() => validateMessage('track', { ...base('track'), timestamp: new Date() })).not.toThrow()
    expect(() => validateMessage('track', { ...base('track'), timestamp: '2024-03-01T10:00:00.000Z' })).not.toThrow()
    for (const timestamp of [new Date('nope'), 'yesterday', 1700000000000, '2024-13-45T99:00:00Z']) {
      expect(errorOf('track', { ...base('track'), timestamp }).field).toBe('timestamp')
    }
  })

  it('messageId, when given, must be a non-empty string', () => {
    expect(errorOf('track', { ...base('track'), messageId: '' }).field).toBe('messageId')
    expect(errorOf('track', { ...base('track'), messageId: 5 }).field).toBe('messageId')
  })

  it.each([null, undefined, 'track', 42, [], [{ userId: 'u' }]])('refuses a message that is %p', (message) => {
    expect(errorOf('track', message).field).toBe('message')
  })
})

describe('validateMessage: fields that would not go on the wire as checked', () => {
  it('counts only own enumerable ids, as only they are sent', () => {
    // An object that inherits its fields is not a plain object: refused as such.
    expect(errorOf('track', Object.create({ userId: 'u', event: 'E' })).message).toBe(
      'track: "message" must be a plain object, got an object that inherits from another object',
    )
    const hidden = Object.defineProperty({ event: 'E' }, 'userId', { value: 'u', enumerable: false })
    expect(errorOf('track', hidden).field).toBe('userId')
  })

  it.each(['traits', 'properties', 'context', 'integrations'])('refuses a %s whose toJSON() returns no object', (name) => {
    const err = errorOf('identify', { userId: 'u', [name]: { toJSON: () => 'flat' } })
    expect(err.field).toBe(name)
    expect(err.rule).toBe('must be an object: its toJSON() returned a string')
  })

  it('checks groupId, previousId and anonymousId wherever they appear', () => {
    expect(errorOf('track', { ...base('track'), groupId: {} }).field).toBe('groupId')
    expect(errorOf('identify', { userId: 'u', previousId: Number.NaN }).field).toBe('previousId')
    expect(errorOf('alias', { ...base('alias'), anonymousId: 42n }).field).toBe('anonymousId')
  })

  it('takes a blank optional id as absent: the other id meets the identity rule', () => {
    expect(() => validateMessage('track', { ...base('track'), userId: 'u', anonymousId: '' })).not.toThrow()
    expect(() => validateMessage('track', { event: 'E', userId: ' ', anonymousId: 'a' })).not.toThrow()
    expect(() => validateMessage('alias', { ...base('alias'), anonymousId: '' })).not.toThrow()
    expect(errorOf('track', { event: 'E', userId: '', anonymousId: '  ' }).field).toBe('userId')
  })
})

describe('isValidTimestamp', () => {
  it.each(['2024-02-30T00:00:00Z', '2023-02-29', '2024-04-31T10:00:00Z'])('refuses the day that does not exist in %s', (s) => {
    expect(isValidTimestamp(s)).toBe(false)
  })
  it('accepts February 29th of a leap year', () => expect(isValidTimestamp('2024-02-29T12:00:00Z')).toBe(true))

  it.each(['2024-03-01', '2024-03-01T10:00:00Z', '2024-03-01T10:00:00+02:00', '2024-03-01T10:00:00.123456Z'])('accepts %s', (s) => {
    expect(isValidTimestamp(s)).toBe(true)
  })
  it.each(['', 'March 1st', '2024/03/01', 'Fri, 01 Mar 2024 10:00:00 GMT'])('refuses %p', (s) => {
    expect(isValidTimestamp(s)).toBe(false)
  })
})
