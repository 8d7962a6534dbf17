import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import {
  AttemptTimeout,
  DeliveryError,
  EventrailError,
  isEventrailError,
  ServiceUnavailableError,
  ValidationError,
} from '../../src/core/errors'
import { failureReason } from '../../src/client/outcome-reasons'

// Issue 34, "Errors as data": why a delivery failed is a field; nothing in src/ tells errors apart
// by their message or name text.
const SRC = join(__dirname, '..', '..', 'src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : []
  })
}

// An error's text or name read for a decision: `.message.split(`, `.message.includes(`, a regex
// tested on `.message`, `err.name === '…'`, `.name)` in a set lookup.
const TEXT_MATCH = [
  /\.message\s*\.\s*(split|includes|startsWith|endsWith|match|indexOf|search|replace)\s*\(/,
  /\.test\(\s*[\w.]*\.message\s*\)/,
  /\b(err|error|e|cause|reason)\??\.name\s*[!=]==/,
  /\.has\(\s*(err|error|e)\??\.name\s*\)/,
]

describe('the error model', () => {
  it('no file in src/ tells errors apart by their message or name text', () => {
    const found: string[] = []
    for (const file of sources(SRC)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (TEXT_MATCH.some((re) => re.test(line))) found.push(`${relative(SRC, file)}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(found).toEqual([])
  })

  it('the scan finds a planted match (it can fail)', () => {
    const planted = [
      "if (err.message.includes('timed out')) return",
      "if (error.name === 'QueueFullError') {",
      '/^timed out/.test(cause.message)',
    ]
    for (const line of planted) expect(TEXT_MATCH.some((re) => re.test(line))).toBe(true)
  })

  it.each<[string, DeliveryError, string, string]>([
    ['a status', new DeliveryError('x', 400, 1), 'status', '400'],
    ['an attempt timeout', new DeliveryError('x', undefined, 3, { cause: new AttemptTimeout('timed out') }), 'timeout', 'timeout'],
    ['no answer', new DeliveryError('x', undefined, 3, { cause: new Error('ECONNRESET') }), 'network', 'network'],
    ['an expiry', new DeliveryError('x', undefined, 1, { reason: 'expired' }), 'expired', 'network'],
    ['an expiry after a 503', new DeliveryError('x', 503, 2, { reason: 'expired' }), 'expired', '503'],
    [
      'an expiry after a timeout',
      new DeliveryError('x', undefined, 2, { reason: 'expired', cause: new AttemptTimeout('t') }),
      'expired',
      'timeout',
    ],
    ['an outage', new ServiceUnavailableError('x', 503), 'outage', 'service_unavailable'],
  ])('a DeliveryError of %s says why as a field', (_name, error, reason, counted) => {
    expect(error.reason).toBe(reason)
    expect(failureReason(error)).toBe(counted)
  })

  it('a timeout whose message says otherwise is still a timeout; a network error that says "timed out after" is not', () => {
    expect(new DeliveryError('x', undefined, 1, { cause: new AttemptTimeout('no words') }).reason).toBe('timeout')
    expect(new DeliveryError('x', undefined, 1, { cause: new Error('timed out after 5 ms') }).reason).toBe('network')
  })

  it('the guards recognise branded errors and nothing else', () => {
    const error = new ValidationError('event', 'is required')
    expect(isEventrailError(error)).toBe(true)
    expect(ValidationError.is(error)).toBe(true)
    expect(EventrailError.is(error)).toBe(true)
    expect(DeliveryError.is(error)).toBe(false)
    expect(isEventrailError(Object.assign(new Error('x'), { name: 'ValidationError' }))).toBe(false)
    expect(isEventrailError(undefined)).toBe(false)
  })
})
