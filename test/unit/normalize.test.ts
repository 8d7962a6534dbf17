import { normalizeMessage as normalizeSnapshot, createIsoClock } from '../../src/message/normalize'
import { snapshotMessage } from '../../src/message/snapshot'
import { serializeMessage, SENT_AT_FIELD_BYTES } from '../../src/message/serialize'
import { MessageTooLargeError, VERSION, MAX_MESSAGE_BYTES, type Message, type MessageType } from '../../src'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** What the client does: read the message once, then normalize what was read. */
function normalizeMessage(type: MessageType, message: Record<string, unknown>, nowIso: () => string, newId: () => string): Message {
  return normalizeSnapshot(type, snapshotMessage(type, message), nowIso, newId)
}

const now = () => '2026-01-01T00:00:00.000Z'
const id = () => 'id-1'

describe('normalizeMessage', () => {
  it('adds type, messageId, timestamp and context.library', () => {
    const m = normalizeMessage('track', { userId: 'u', event: 'E' }, now, id)
    expect(m).toEqual({
      userId: 'u',
      event: 'E',
      type: 'track',
      messageId: 'id-1',
      timestamp: '2026-01-01T00:00:00.000Z',
      context: { library: { name: 'eventrail', version: VERSION } },
    })
  })

  it('keeps a messageId the caller brings', () => {
    expect(normalizeMessage('track', { userId: 'u', event: 'E', messageId: 'mine' }, now, id).messageId).toBe('mine')
  })

  it('converts a Date timestamp to ISO-8601 and keeps an ISO string', () => {
    const date = new Date('2020-05-06T07:08:09.010Z')
    expect(normalizeMessage('track', { userId: 'u', event: 'E', timestamp: date }, now, id).timestamp).toBe('2020-05-06T07:08:09.010Z')
    expect(normalizeMessage('track', { userId: 'u', event: 'E', timestamp: '2020-05-06T07:08:09+02:00' }, now, id).timestamp).toBe(
      '2020-05-06T07:08:09+02:00',
    )
  })

  it('merges context.library under the caller context', () => {
    const m = normalizeMessage('identify', { userId: 'u', context: { ip: '1.2.3.4', locale: 'fr' } }, now, id)
    expect(m.context).toEqual({ library: { name: 'eventrail', version: VERSION }, ip: '1.2.3.4', locale: 'fr' })
    const own = normalizeMessage('identify', { userId: 'u', context: { library: { name: 'wrapper', version: '9' } } }, now, id)
    expect(own.context.library).toEqual({ name: 'wrapper', version: '9' })
  })

  it('coerces numeric ids to strings and drops null ids', () => {
    const m = normalizeMessage('group', { userId: 42, anonymousId: null, groupId: 7 }, now, id)
    expect(m.userId).toBe('42')
    expect(m.groupId).toBe('7')
    expect(JSON.parse(JSON.stringify(m))).not.toHaveProperty('anonymousId')
    expect(normalizeMessage('alias', { userId: 1, previousId: 2 }, now, id)).toMatchObject({ userId: '1', previousId: '2' })
  })

  it('leaves out blank ids, which validation took as absent', () => {
    const m = normalizeMessage('track', { userId: 'u1', anonymousId: '', event: 'E' }, now, id)
    expect(m.userId).toBe('u1')
    expect(JSON.parse(JSON.stringify(m))).not.toHaveProperty('anonymousId')
    expect(
      JSON.parse(JSON.stringify(normalizeMessage('track', { userId: ' \t', anonymousId: 'a1', event: 'E' }, now, id))),
    ).not.toHaveProperty('userId')
  })

  it('does not change the caller object', () => {
    const input = { userId: 5, event: 'E', context: { ip: 'x' } }
    const copy = structuredClone(input)
    normalizeMessage('track', input, now, id)
    expect(input).toEqual(copy)
  })

  it('the type always wins over a type field in the message', () => {
    expect(normalizeMessage('page', { userId: 'u', type: 'track' }, now, id).type).toBe('page')
  })
})

describe('createIsoClock', () => {
  it('formats the current time as ISO-8601', () => {
    jest.useFakeTimers({ now: new Date('2030-02-03T04:05:06.007Z') })
    try {
      const clock = createIsoClock()
      expect(clock()).toBe('2030-02-03T04:05:06.007Z')
      jest.advanceTimersByTime(1000)
      expect(clock()).toBe('2030-02-03T04:05:07.007Z')
    } finally {
      jest.useRealTimers()
    }
  })
})

describe('serializeMessage', () => {
  const message = (extra: Record<string, unknown>) => normalizeMessage('track', { userId: 'u', event: 'E', ...extra }, now, id)

  it('returns the JSON text and its exact UTF-8 byte length', () => {
    const m = message({ properties: { name: 'Zoë 😀' } })
    const s = serializeMessage(m, false)
    expect(s.json).toBe(JSON.stringify(m))
    expect(s.bytes).toBe(Buffer.byteLength(s.json))
    expect(s.bytes).toBeGreaterThan(s.json.length)
  })

  it('refuses a message over 32 KB and accepts one at exactly 32 KB', () => {
    const probe = serializeMessage(message({ properties: { p: '' } }), false).bytes
    const exact = message({ properties: { p: 'x'.repeat(MAX_MESSAGE_BYTES - probe) } })
    expect(serializeMessage(exact, false).bytes).toBe(MAX_MESSAGE_BYTES)
    const over = message({ properties: { p: 'x'.repeat(MAX_MESSAGE_BYTES - probe + 1) } })
    expect(() => serializeMessage(over, false)).toThrow(MessageTooLargeError)
    expect(() => serializeMessage(over, false)).toThrow(/32769 bytes serialized, more than the limit of 32768/)
  })

  it('counts multi-byte characters as bytes, not characters', () => {
    const probe = serializeMessage(message({ properties: { p: '' } }), false).bytes
    const chars = Math.floor((MAX_MESSAGE_BYTES - probe) / 2) + 1
    expect(() => serializeMessage(message({ properties: { p: 'é'.repeat(chars) } }), false)).toThrow(MessageTooLargeError)
  })

  it('counts the sentAt field of a message sent alone', () => {
    const probe = serializeMessage(message({ properties: { p: '' } }), false).bytes
    const m = message({ properties: { p: 'x'.repeat(MAX_MESSAGE_BYTES - probe - SENT_AT_FIELD_BYTES + 1) } })
    expect(() => serializeMessage(m, false)).not.toThrow()
    expect(() => serializeMessage(m, true)).toThrow(MessageTooLargeError)
  })
})

describe('VERSION', () => {
  it('matches package.json', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8'))
    expect(VERSION).toBe(pkg.version)
  })
})
