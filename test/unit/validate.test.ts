import { validateMessage, isValidTimestamp } from '../../src/message/validate'
import { ValidationError } from '../../src'
import type { MessageType } from '../../src'

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
    for (const value of ['x', 3, [1], true, new Date()]) {
      const err = errorOf('track', { ...base('track'), [field]: value })
      expect(err.field).toBe(field)
      expect(err.rule).toBe('must be an object')
    }
    expect(() => validateMessage('track', { ...base('track'), [field]: {} })).not.toThrow()
  })

  it('integrations values are booleans or option objects', () => {
    expect(() =>
      validateMessage('track', { ...base('track'), integrations: { All: false, Mixpanel: true, Amplitude: { x: 1 } } }),
    ).not.toThrow()
    expect(errorOf('track', { ...base('track'), integrations: { Mixpanel: 'yes' } }).field).toBe('integrations.Mixpanel')
  })

  it('page and screen take string name and category', () => {
    expect(() => validateMessage('page', { userId: 'u', name: 'Home', category: 'Docs' })).not.toThrow()
    expect(errorOf('page', { userId: 'u', name: 3 }).field).toBe('name')
    expect(errorOf('screen', { userId: 'u', category: {} }).field).toBe('category')
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
    expect(errorOf('track', Object.create({ userId: 'u', event: 'E' })).field).toBe('userId')
    const hidden = Object.defineProperty({ event: 'E' }, 'userId', { value: 'u', enumerable: false })
    expect(errorOf('track', hidden).field).toBe('userId')
  })

  it.each(['traits', 'properties', 'context', 'integrations'])('refuses a %s object with a toJSON method', (name) => {
    const err = errorOf('identify', { userId: 'u', [name]: { toJSON: () => 'flat' } })
    expect(err.field).toBe(name)
    expect(err.rule).toMatch(/toJSON/)
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
