import { judgeMessage, type MessageKind } from '../../src/collector/verdict'

const user = { userId: 'u1' }

describe('judgeMessage: the rules of each kind of message', () => {
  it.each<[MessageKind, Record<string, unknown>]>([
    ['identify', { userId: 'u1', traits: { email: 'ada@example.com' } }],
    ['identify', { anonymousId: 'a1' }],
    ['track', { userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } }],
    ['page', { anonymousId: 'a1', name: 'Home', properties: { url: 'https://example.com' } }],
    ['page', { userId: 'u1' }],
    ['screen', { userId: 'u1', name: 'Settings' }],
    ['group', { userId: 'u1', groupId: 'acme', traits: { employees: 12 } }],
    ['alias', { previousId: 'a1', userId: 'u1' }],
    [
      'track',
      {
        userId: 'u1',
        event: 'E',
        timestamp: '2021-11-19T09:00:00.000Z',
        context: { ip: '1.2.3.4' },
        integrations: { All: false, Mixpanel: true },
      },
    ],
    ['track', { userId: 'u1', event: 'E', integrations: { Amplitude: { session: 1 } } }],
    ['identify', { userId: 'u1', anonymousId: null, traits: null }],
  ])('accepts a valid %s message %#', (type, message) => {
    expect(judgeMessage(type, message)).toBeUndefined()
  })

  it.each<[MessageKind, unknown, string]>([
    ['track', [], 'track: the message must be a JSON object (got an array)'],
    ['identify', 'u1', 'identify: the message must be a JSON object (got a string)'],
    ['alias', null, 'alias: the message must be a JSON object (got null)'],
  ])('drops a %s body that is not an object: %p', (type, message, reason) => {
    expect(judgeMessage(type, message)).toEqual({ code: 'not_an_object', reason })
  })

  it.each<MessageKind>(['identify', 'track', 'page', 'screen', 'group'])(
    'drops a %s message with neither userId nor anonymousId',
    (type) => {
      const drop = judgeMessage(type, { event: 'E', groupId: 'g', traits: {} })
      expect(drop).toEqual({ code: 'missing_identity', reason: `${type}: "userId" or "anonymousId" is required (a non-empty string)` })
    },
  )

  it('counts an empty or blank userId as missing', () => {
    expect(judgeMessage('identify', { userId: '', anonymousId: '  ' })?.code).toBe('missing_identity')
  })

  it.each<[MessageKind, string, Record<string, unknown>, string]>([
    ['track', 'missing_event', { ...user }, 'track: "event" is required (a non-empty string)'],
    ['track', 'missing_event', { ...user, event: '' }, 'track: "event" is required (a non-empty string)'],
    ['group', 'missing_group_id', { ...user }, 'group: "groupId" is required (a non-empty string)'],
    ['alias', 'missing_previous_id', { userId: 'u1' }, 'alias: "previousId" is required (a non-empty string)'],
    ['alias', 'missing_user_id', { previousId: 'a1' }, 'alias: "userId" is required (a non-empty string)'],
  ])('drops a %s message without its required field (%s) %#', (type, code, message, reason) => {
    expect(judgeMessage(type, message)).toEqual({ code, reason })
  })

  it.each<[MessageKind, Record<string, unknown>, string]>([
    ['identify', { userId: 42 }, 'identify: "userId" must be a string (got a number)'],
    ['track', { anonymousId: true, event: 'E' }, 'track: "anonymousId" must be a string (got a boolean)'],
    ['track', { ...user, event: 7 }, 'track: "event" must be a string (got a number)'],
    ['group', { ...user, groupId: { id: 1 } }, 'group: "groupId" must be a string (got an object)'],
    ['page', { ...user, name: ['Home'] }, 'page: "name" must be a string (got an array)'],
    ['identify', { ...user, traits: 'vip' }, 'identify: "traits" must be an object (got a string)'],
    ['track', { ...user, event: 'E', properties: [1, 2] }, 'track: "properties" must be an object (got an array)'],
    ['screen', { ...user, context: 'web' }, 'screen: "context" must be an object (got a string)'],
    ['alias', { previousId: 'a', userId: 'u', integrations: true }, 'alias: "integrations" must be an object (got a boolean)'],
    [
      'track',
      { ...user, event: 'E', integrations: { Mixpanel: 'yes' } },
      'track: "integrations.Mixpanel" must be true, false or an options object (got a string)',
    ],
    ['track', { ...user, event: 'E', timestamp: 'yesterday' }, 'track: "timestamp" must be an ISO-8601 date-time string (got "yesterday")'],
    ['identify', { ...user, timestamp: 1637312400000 }, 'identify: "timestamp" must be an ISO-8601 date-time string (got 1637312400000)'],
  ])('drops a %s message with a field of the wrong type %#', (type, message, reason) => {
    expect(judgeMessage(type, message)).toEqual({ code: 'wrong_field_type', reason })
  })
})
