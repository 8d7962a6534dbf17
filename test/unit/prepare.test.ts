import { prepareCall, prepareParsedLine, type ParsedLine } from '../../src/message/prepare'
import type { MessageType } from '../../src/types'

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
  expect(JSON.parse(prepared.json)).toEqual(asCall(type, text, addedId))
  expect(prepared.bytes).toBe(Buffer.byteLength(prepared.json))
}

describe('prepareParsedLine', () => {
  it('sends a plain line as written, with messageId, timestamp and context.library in front', () => {
    const text = '{"type":"track","userId":"u1","event":"Order Completed","properties":{"total":12.5,"items":[1,2]}}'
    const prepared = prepareParsedLine('track', line(text, 'id-1'), now)
    expect(prepared.json.endsWith(text.slice(1))).toBe(true)
    expect(prepared.json.startsWith('{"messageId":"id-1","timestamp":"2026-11-25T00:00:00.000Z","context":{"library":')).toBe(true)
    sameAsCall('track', text, 'id-1')
  })

  it('keeps the line own messageId, timestamp and context (with library), and counts multi-byte text exactly', () => {
    const text =
      '{"type":"identify","userId":"ü","messageId":"m","timestamp":"2020-01-01T00:00:00Z","context":{"library":{"name":"x"},"ip":"1.2.3.4"},"traits":{"name":"Zoë 🎉"}}'
    const prepared = prepareParsedLine('identify', line(text), now)
    expect(prepared.json).toBe(text)
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
})
