import { isHistorical, routeMessage, selectDestinations } from '../../src/collector/destinations'
import { oversizedBatchItem } from '../../src/collector/batch-size'
import { expandBody, mergeEnvelope } from '../../src/collector/envelope'
import { basicUserName, checkContentType, checkWriteKey } from '../../src/collector/request-rules'
import { basic } from './helpers'

const ALL = ['Amplitude', 'Google Analytics', 'Mixpanel']

describe('selectDestinations: the destination-selection rules of the wire spec', () => {
  it('enables every destination by default (no integrations)', () => {
    expect(selectDestinations(undefined, ALL)).toEqual(ALL)
    expect(selectDestinations({}, ALL)).toEqual(ALL)
  })

  it('disables a destination set to false', () => {
    expect(selectDestinations({ Mixpanel: false }, ALL)).toEqual(['Amplitude', 'Google Analytics'])
  })

  it('matches names case-sensitively: "mixpanel" does not name Mixpanel', () => {
    expect(selectDestinations({ mixpanel: false }, ALL)).toEqual(ALL)
  })

  it('with All: false, enables only the destinations set to true', () => {
    expect(selectDestinations({ All: false, Mixpanel: true, Amplitude: false }, ALL)).toEqual(['Mixpanel'])
    expect(selectDestinations({ All: false }, ALL)).toEqual([])
  })

  it('with All: true, still disables a destination set to false', () => {
    expect(selectDestinations({ All: true, Amplitude: false }, ALL)).toEqual(['Google Analytics', 'Mixpanel'])
  })

  it('counts an options object as enabling the destination', () => {
    expect(selectDestinations({ All: false, Amplitude: { sessionId: 7 } }, ALL)).toEqual(['Amplitude'])
  })
})

describe('isHistorical and routeMessage: historical data', () => {
  const now = Date.parse('2024-05-01T12:00:00.000Z')
  const rules = { destinations: ALL, historicalDestinations: new Set(['Amplitude']), historicalAfterMs: 300_000 }

  it('counts a message as historical when its timestamp is at least historicalAfterMs old', () => {
    expect(isHistorical('2024-05-01T11:55:00.000Z', now, 300_000)).toBe(true)
    expect(isHistorical('2024-05-01T11:55:00.001Z', now, 300_000)).toBe(false)
    expect(isHistorical('2024-05-01T12:10:00.000Z', now, 300_000)).toBe(false)
    expect(isHistorical(undefined, now, 300_000)).toBe(false)
  })

  it('sends a historical message only to destinations that take historical data', () => {
    expect(routeMessage({ timestamp: '2021-11-19T09:00:00Z' }, rules, now)).toEqual({ destinations: ['Amplitude'], historical: true })
    expect(routeMessage({ timestamp: '2024-05-01T12:00:00Z' }, rules, now)).toEqual({ destinations: ALL, historical: false })
  })

  it('applies integrations before the historical rule', () => {
    const message = { timestamp: '2021-11-19T09:00:00Z', integrations: { Amplitude: false } }
    expect(routeMessage(message, rules, now)).toEqual({ destinations: [], historical: true })
  })
})

describe('mergeEnvelope and expandBody: the batch envelope', () => {
  it('merges the envelope context and integrations into an item, the item winning', () => {
    const envelope = { context: { ip: '1.1.1.1', locale: 'fr-FR' }, integrations: { All: false, Mixpanel: true } }
    const item = { type: 'track', context: { locale: 'en-US' }, integrations: { Amplitude: true } }
    expect(mergeEnvelope(envelope, item)).toEqual({
      type: 'track',
      context: { ip: '1.1.1.1', locale: 'en-US' },
      integrations: { All: false, Mixpanel: true, Amplitude: true },
    })
  })

  it('gives an item without context the envelope context', () => {
    expect(mergeEnvelope({ context: { locale: 'de' } }, { type: 'page' })).toEqual({ type: 'page', context: { locale: 'de' } })
  })

  it('takes the kind of a single-message body from its endpoint', () => {
    expect(expandBody('track', { type: 'identify', userId: 'u1' })).toEqual([
      { type: 'track', kind: 'track', message: { type: 'track', userId: 'u1' } },
    ])
  })

  it('drops batch items whose type is missing, unknown or alias', () => {
    const items = expandBody('batch', { batch: [{ userId: 'u' }, { type: 'Track' }, { type: 'alias' }, 5] })
    expect(items.map((i) => i.drop?.code)).toEqual(['type_not_allowed', 'type_not_allowed', 'alias_in_batch', 'not_an_object'])
    expect(items[1].drop?.reason).toBe('batch: "type" of an item must be one of identify, group, track, page, screen (got "Track")')
  })

  it('drops a batch body whose batch is not an array, and an envelope context that is not an object', () => {
    expect(expandBody('batch', { batch: {} })[0].drop?.code).toBe('missing_batch')
    expect(expandBody('batch', { batch: [{ type: 'track' }], context: 'x' })[0].drop?.code).toBe('wrong_field_type')
  })

  it('finds a batch item over 32 KB, measured as compact JSON', () => {
    const fits = { type: 'track', pad: 'x'.repeat(32 * 1024 - 30) }
    const over = { type: 'track', pad: 'x'.repeat(32 * 1024) }
    expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(32 * 1024)
    expect(oversizedBatchItem({ batch: [fits] })).toBeUndefined()
    const overBytes = Buffer.byteLength(JSON.stringify(over))
    expect(oversizedBatchItem({ batch: [fits, over] })).toBe(
      `batch item 1 is ${overBytes} bytes with the batch's context and integrations merged in, over the limit of 32768 bytes (32 KB) per message`,
    )
  })

  it('measures each item with the envelope merged in: a small item under a large context is over', () => {
    const context = { pad: 'y'.repeat(20 * 1024) }
    const item = { type: 'track', event: 'E', userId: 'u', properties: { pad: 'x'.repeat(15 * 1024) } }
    expect(oversizedBatchItem({ batch: [item] })).toBeUndefined()
    expect(oversizedBatchItem({ context, batch: [item] })).toMatch(
      /^batch item 0 is \d+ bytes with the batch's context and integrations merged in/,
    )
    expect(oversizedBatchItem({ context: { pad: 'y'.repeat(40 * 1024) }, batch: [{}] })).toMatch(
      /^the batch's context and integrations are \d+ bytes: merged into each item, every item would be over/,
    )
  })
})

describe('request rules: write key and Content-Type', () => {
  it('reads the write key from Basic auth with an empty password', () => {
    expect(basicUserName(basic('wk_123'))).toBe('wk_123')
    expect(basicUserName('basic ' + Buffer.from('wk_123').toString('base64'))).toBe('wk_123')
    expect(basicUserName('Bearer wk_123')).toBeNull()
    expect(basicUserName(basic(''))).toBeNull()
    expect(basicUserName(undefined)).toBeNull()
  })

  it('drops messages of a missing or unknown write key, and accepts any key when none are configured', () => {
    expect(checkWriteKey(undefined, undefined).drop?.code).toBe('missing_write_key')
    expect(checkWriteKey(basic('other'), new Set(['dev'])).drop).toEqual({
      code: 'unknown_write_key',
      reason: 'unknown write key "ot…" (masked): no source of this collector has it',
    })
    expect(checkWriteKey(basic('dev'), new Set(['dev']))).toEqual({ writeKey: 'dev' })
    expect(checkWriteKey(basic('anything'), undefined)).toEqual({ writeKey: 'anything' })
  })

  it('accepts application/json with parameters and refuses other types', () => {
    expect(checkContentType('application/json')).toBeUndefined()
    expect(checkContentType('Application/JSON; charset=utf-8')).toBeUndefined()
    expect(checkContentType('text/plain')?.reason).toBe('wrong Content-Type: it must be application/json (got "text/plain")')
    expect(checkContentType(undefined)?.code).toBe('wrong_content_type')
  })
})
