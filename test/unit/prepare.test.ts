import { prepareCall, type ParsedLine } from '../../src/message/prepare'
import { hasLongDigitRun, prepareParsedLine } from '../../src/message/prepare-line'
import { messageText } from '../../src/message/serialize'
import type { MessageType } from '../../src/core/types'

// A line of an import is sent as written when its text already is what a call would send; either
// way the message on the wire must be the one a call with the parsed object would send.
const now = (): string => '2026-11-25T00:00:00.000Z'

function line(text: string, addedId?: string): ParsedLine {
  const value = JSON.parse(text) as Record<string, unknown>
  if (addedId !== undefined) value.messageId = addedId
  return { text, value, ...(addedId !== undefined ? { addedId } : {}) }
}

// What a call with the same (parsed) object sends.
function asCall(type: MessageType, text: string, addedId?: string): unknown {
  return JSON.parse(prepareCall(type, line(text, addedId).value, now).json)
}

const sameAsCall = (type: MessageType, text: string, addedId?: string): void => {
  const prepared = prepareParsedLine(type, line(text, addedId), now)
  expect(JSON.parse(messageText(prepared))).toEqual(asCall(type, text, addedId))
  expect(prepared.bytes).toBe(Buffer.byteLength(messageText(prepared)))
}

describe('prepareParsedLine', () => {
  it('sends a plain line as written, with messageId, timestamp and context.library in front', () => {
    const text = '{"type":"track","userId":"u1","event":"Order Completed","properties":{"total":12.5,"items":[1,2]}}'
    const prepared = prepareParsedLine('track', line(text, 'id-1'), now)
    // The line itself is kept, and what goes in front of it apart: never joined into a copy.
    expect(prepared.json).toBe(text)
    expect(prepared.head?.startsWith('{"messageId":"id-1","timestamp":"2026-11-25T00:00:00.000Z","context":{"library":')).toBe(true)
    expect(messageText(prepared)).toBe(`${prepared.head}${text.slice(1)}`)
    sameAsCall('track', text, 'id-1')
  })

  it('keeps the line own messageId, timestamp and context (with library), and counts multi-byte text exactly', () => {
    const text =
      '{"type":"identify","userId":"ü","messageId":"m","timestamp":"2020-01-01T00:00:00Z","context":{"library":{"name":"x"},"ip":"1.2.3.4"},"traits":{"name":"Zoë 🎉"}}'
    const prepared = prepareParsedLine('identify', line(text), now)
    expect(prepared.json).toBe(text)
    expect(prepared.head).toBeUndefined()
    sameAsCall('identify', text)
  })

  it.each([
    ['a number id', '{"type":"track","userId":42,"event":"E"}'],
    ['a null id', '{"type":"track","userId":"u","anonymousId":null,"event":"E"}'],
    ['a blank id', '{"type":"track","userId":"u","anonymousId":"  ","event":"E"}'],
    ['a sentAt', '{"type":"track","userId":"u","event":"E","sentAt":"2020-01-01T00:00:00Z"}'],
    ['a context without library', '{"type":"track","userId":"u","event":"E","context":{"ip":"1.2.3.4"}}'],
    ['a null context', '{"type":"track","userId":"u","event":"E","context":null}'],
    ['a null timestamp', '{"type":"track","userId":"u","event":"E","timestamp":null}'],
    ['a number JSON reads as Infinity', '{"type":"track","userId":"u","event":"E","properties":{"big":1e400}}'],
    ['309 digits in a row', `{"type":"track","userId":"u","event":"E","properties":{"big":${'9'.repeat(310)}}}`],
    ['white space around', '  {"type":"track", "userId":"u", "event":"E"}  '],
    ['a lone surrogate in the text', '{"type":"track","userId":"u","event":"\ud800"}'],
  ])('sends what a call would with %s', (_what, text) => {
    sameAsCall('track', text, 'id-2')
  })

  it.each([
    ['a quote and a backslash', 'id "quoted" \\ back'],
    ['a control character', 'id\ttab'],
    ['non-ASCII text', 'idé-東京-🚀'],
    ['DEL (0x7f)', 'id\u007f'],
  ])('escapes and counts an added id of the caller with %s', (_what, id) => {
    const text = '{"type":"track","userId":"u","event":"E"}'
    const prepared = prepareParsedLine('track', line(text, id), now)
    expect((JSON.parse(messageText(prepared)) as { messageId: string }).messageId).toBe(id)
    sameAsCall('track', text, id)
  })

  it('puts the time of each millisecond in the head, with or without the context', () => {
    let iso = '2026-11-25T00:00:00.000Z'
    const clock = (): string => iso
    const withContext = '{"type":"track","userId":"u","event":"E"}'
    const withoutContext = '{"type":"track","userId":"u","event":"E","context":{"library":{"name":"x"}}}'
    const timestamps = (): unknown[] =>
      [withContext, withoutContext].map((text) => {
        const message = JSON.parse(messageText(prepareParsedLine('track', line(text, 'i'), clock))) as Record<string, unknown>
        return [message.timestamp, (message.context as { library: { name: string } }).library.name]
      })
    expect(timestamps()).toEqual([
      ['2026-11-25T00:00:00.000Z', 'eventrail'],
      ['2026-11-25T00:00:00.000Z', 'x'],
    ])
    iso = '2026-11-25T00:00:00.001Z'
    expect(timestamps()).toEqual([
      ['2026-11-25T00:00:00.001Z', 'eventrail'],
      ['2026-11-25T00:00:00.001Z', 'x'],
    ])
  })

  it('sends an alias the way of a call (its body carries sentAt)', () => {
    sameAsCall('alias', '{"type":"alias","userId":"u","previousId":"p"}', 'id-3')
  })

  it('refuses what a call refuses, naming the field', () => {
    expect(() => prepareParsedLine('track', line('{"type":"track","userId":"u"}', 'i'), now)).toThrow(/"event" is required/)
    expect(() => prepareParsedLine('track', line('{"type":"track","userId":"u","event":"E","integrations":{"A":1}}', 'i'), now)).toThrow(
      /"integrations.A" must be true or false/,
    )
    expect(() => prepareParsedLine('track', line('{"type":"track","userId":"u","event":"E","properties":[1]}', 'i'), now)).toThrow(
      /"properties" must be an object/,
    )
  })

  it('refuses a line nested deeper than a call may be, and one over 32 KB as the call would measure it', () => {
    const deep = `{"type":"track","userId":"u","event":"E","properties":${'{"a":'.repeat(1200)}1${'}'.repeat(1200)}}`
    expect(() => prepareParsedLine('track', line(deep, 'i'), now)).toThrow(/nested more than 1000 levels/)
    const big = `{"type":"track","userId":"u","event":"E","properties":{"pad":"${'x'.repeat(33_000)}"}}`
    expect(() => prepareParsedLine('track', line(big, 'i'), now)).toThrow(/more than the limit of 32768 bytes/)
  })

  it('decides the limit on the canonical form when only white space puts the line over 32 KB', () => {
    const text = `{"type":"track","userId":"u","event":"E",${' '.repeat(33_000)}"properties":{}}`
    const prepared = prepareParsedLine('track', line(text, 'id-4'), now)
    expect(prepared.bytes).toBeLessThan(1000)
    sameAsCall('track', text, 'id-4')
  })

  it('counts the bytes the reader gives for the text, and measures a trimmed line itself', () => {
    const text = '{"type":"track","userId":"u","event":"Café"}'
    const exact = prepareParsedLine('track', { ...line(text, 'id-5'), bytes: Buffer.byteLength(text) }, now)
    expect(exact.bytes).toBe(Buffer.byteLength(messageText(exact)))
    // The bytes of the untrimmed line do not apply to its trimmed text.
    const padded = `  ${text}  `
    const trimmed = prepareParsedLine('track', { ...line(padded, 'id-5'), bytes: Buffer.byteLength(padded) }, now)
    expect(trimmed.bytes).toBe(Buffer.byteLength(messageText(trimmed)))
  })
})

describe('hasLongDigitRun: 309 digits in a row, wherever they are', () => {
  it.each([0, 1, 150, 308, 309, 500])('finds 309 digits after %i other characters, and not 308', (offset) => {
    const pad = 'a'.repeat(offset)
    expect(hasLongDigitRun(`${pad}${'7'.repeat(309)}`)).toBe(true)
    expect(hasLongDigitRun(`${pad}${'7'.repeat(309)}"}`)).toBe(true)
    expect(hasLongDigitRun(`${pad}${'7'.repeat(308)}"}`)).toBe(false)
    expect(hasLongDigitRun(`${pad}${'7'.repeat(308)}`)).toBe(false)
  })

  it('does not join runs split by another character', () => {
    expect(hasLongDigitRun(`${'1'.repeat(200)}.${'2'.repeat(200)}`)).toBe(false)
    expect(hasLongDigitRun(`${'1'.repeat(200)}.${'2'.repeat(200)}e${'3'.repeat(400)}`)).toBe(true)
    expect(hasLongDigitRun('')).toBe(false)
  })
})
