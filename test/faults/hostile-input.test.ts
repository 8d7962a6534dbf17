import { Analytics, LIBRARY_NAME, ValidationError, VERSION, type MessageType } from '../../src'
import { startFaultServer, type FaultServer } from './fault-server'
import { CASES, METHODS, payloadField, validMessage, type HostileCase } from './hostile-cases'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.

const ID_FIELDS = new Set(['userId', 'anonymousId', 'previousId', 'groupId'])
const RICH = { text: 'héllo ✓ 😀 \u2028', list: [1, 'two', null, { three: 3 }], nested: { a: { b: true } }, n: -1.5e-7 }

interface Result {
  readonly input: unknown
  readonly messageId: string
  calls: number
  error: Error | undefined
  thrown: unknown
}

type Send = (message: unknown, callback?: (err: Error | undefined) => void) => unknown

function sender(analytics: Analytics, method: MessageType): Send {
  return (analytics[method] as unknown as Send).bind(analytics)
}

/** A valid message with rich content, sent beside every hostile one. */
function neighbour(method: MessageType, messageId: string): Record<string, unknown> {
  const message = validMessage(method, messageId)
  const field = payloadField(method)
  message[field] = { ...RICH }
  return message
}

/** Why an accepted message, as received, is not what JSON.stringify of the input would give (or breaks the wire rules). */
function serializationProblems(method: MessageType, input: Record<string, unknown>, wire: any): string[] {
  const problems: string[] = []
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire))
    return [`arrived as ${JSON.stringify(wire)}, not as a message object`]
  if (wire.type !== method) problems.push(`type is ${wire.type}`)
  if (typeof wire.timestamp !== 'string' || Number.isNaN(Date.parse(wire.timestamp))) problems.push(`timestamp is ${wire.timestamp}`)
  const expectedKeys = new Set<string>()
  // sentAt belongs to the request: the client drops a message's own and, for an alias sent on its own, adds the body's.
  const ownedByClient =
    method === 'alias' ? ['type', 'messageId', 'timestamp', 'context', 'sentAt'] : ['type', 'messageId', 'timestamp', 'context']
  for (const key of Object.keys(input)) {
    if (key === 'type' || key === 'sentAt') continue
    let value = input[key]
    if (key === 'timestamp') {
      const expected = value instanceof Date ? value.toISOString() : String(value)
      if (value != null && wire.timestamp !== expected) problems.push(`timestamp ${wire.timestamp}, expected ${expected}`)
      continue
    }
    if (key === 'context') {
      if (value == null) continue
      // The context as JSON makes it (its toJSON honoured), under context.library.
      const expected = JSON.stringify({ library: { name: LIBRARY_NAME, version: VERSION }, ...JSON.parse(JSON.stringify(value)) })
      if (JSON.stringify(wire.context) !== expected) problems.push(`context ${JSON.stringify(wire.context)}, expected ${expected}`)
      continue
    }
    if (ID_FIELDS.has(key)) {
      // An absent optional id: null or a blank string is left out.
      if (value === null || (typeof value === 'string' && value.trim() === '')) continue
      if (value !== undefined && typeof value !== 'string') value = String(value)
    }
    const expected = JSON.stringify(value)
    if (expected === undefined) continue
    expectedKeys.add(key)
    const got = Object.prototype.hasOwnProperty.call(wire, key) ? JSON.stringify(wire[key]) : undefined
    if (got !== expected) problems.push(`${key}: sent ${got?.slice(0, 200)}, JSON.stringify gives ${expected.slice(0, 200)}`)
  }
  for (const key of Object.keys(wire)) {
    if (!ownedByClient.includes(key) && !expectedKeys.has(key)) problems.push(`unexpected key ${key}`)
  }
  // The wire rules, whatever the input looked like.
  const isId = (v: unknown) => typeof v === 'string' && v.trim() !== ''
  if (method === 'alias') {
    if (!isId(wire.userId) || !isId(wire.previousId)) problems.push('an alias without userId and previousId went on the wire')
  } else if (!isId(wire.userId) && !isId(wire.anonymousId)) problems.push('a message with neither userId nor anonymousId went on the wire')
  if (method === 'track' && !isId(wire.event)) problems.push('a track without event went on the wire')
  if (method === 'group' && !isId(wire.groupId)) problems.push('a group without groupId went on the wire')
  for (const field of ['properties', 'traits', 'context', 'integrations']) {
    const v = wire[field]
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))
      problems.push(`${field} went on the wire as ${JSON.stringify(v)}`)
  }
  return problems
}

describe.each(METHODS)('%s: hostile input', (method) => {
  let server: FaultServer
  let analytics: Analytics
  const results = new Map<string, Result>()
  let flushError: unknown

  beforeAll(async () => {
    server = await startFaultServer()
    analytics = new Analytics('hostile-key', { host: server.url, flushAt: 50, flushInterval: 0 })
    const send = sender(analytics, method)
    CASES.forEach((c, k) => {
      send(neighbour(method, `v${k}a`))
      const messageId = `h${k}`
      const input = c.make(validMessage(method, messageId), method)
      const result: Result = { input, messageId, calls: 0, error: undefined, thrown: undefined }
      results.set(c.name, result)
      try {
        send(input, (err) => {
          result.calls += 1
          result.error ??= err
        })
      } catch (err) {
        result.thrown = err
      }
      send(neighbour(method, `v${k}b`))
    })
    await analytics.flush().catch((err) => (flushError = err))
  }, 30_000)

  afterAll(async () => {
    await analytics.closeAndFlush({ timeout: 100 }).catch(() => undefined)
    await server.close()
  })

  it.each(CASES.map((c): [string, HostileCase] => [c.name, c]))(
    '%s: a ValidationError naming a field, or sent as JSON.stringify would',
    (name, c) => {
      const result = results.get(name) as Result
      const problems: string[] = []
      const error = (result.thrown ?? result.error) as Error | undefined
      if (result.thrown !== undefined && result.calls !== 0) problems.push('threw and also called the callback')
      if (result.thrown === undefined && result.calls !== 1) problems.push(`callback called ${result.calls} times`)
      const expectation = c.expect?.(method)
      if (error !== undefined) {
        if (!(error instanceof ValidationError)) problems.push(`${error.name}: ${error.message}`)
        else {
          if (!error.field || !error.message.includes(`"${error.field}"`))
            problems.push(`the error does not name its field: ${error.message}`)
          if (expectation === 'accept') problems.push(`refused (${error.message}), expected it to be sent`)
          else if (expectation !== undefined && error.field !== expectation.field)
            problems.push(`names "${error.field}", expected "${expectation.field}"`)
        }
        // A refused message is never sent.
        if (server.acceptedMessages.some((m) => m?.messageId === result.messageId)) problems.push('refused but sent')
      } else {
        if (expectation !== undefined && expectation !== 'accept')
          problems.push(`accepted, expected a ValidationError naming "${expectation.field}"`)
        const arrived = server.acceptedMessages.filter((m) => m?.messageId === result.messageId)
        if (arrived.length !== 1) problems.push(`accepted, but arrived ${arrived.length} times`)
        else problems.push(...serializationProblems(method, result.input as Record<string, unknown>, arrived[0]))
      }
      expect(problems).toEqual([])
    },
  )

  it('delivers every valid message sent beside a hostile one, intact and once', () => {
    const problems: string[] = []
    CASES.forEach((_c, k) => {
      for (const id of [`v${k}a`, `v${k}b`]) {
        const arrived = server.acceptedMessages.filter((m) => m?.messageId === id)
        if (arrived.length !== 1) problems.push(`${id} arrived ${arrived.length} times`)
        else if (
          JSON.stringify(arrived[0][payloadField(method)]) !==
          JSON.stringify(method === 'alias' ? { library: { name: LIBRARY_NAME, version: VERSION }, ...RICH } : RICH)
        ) {
          problems.push(`${id} arrived changed: ${JSON.stringify(arrived[0])}`)
        }
      }
    })
    expect(problems).toEqual([])
    expect(flushError).toBeUndefined()
  })

  it('sends only valid JSON bodies, within the limits', () => {
    expect(server.requests.length).toBeGreaterThan(0)
    expect(server.requests.filter((r) => r.body === undefined).map((r) => r.text.slice(0, 200))).toEqual([])
    expect(server.requests.every((r) => r.status === 200)).toBe(true)
    expect(Math.max(...server.requests.map((r) => r.raw.length))).toBeLessThanOrEqual(500 * 1024)
  })

  it('leaves Object.prototype unpolluted', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false)
  })

  it('without a callback: throws the same ValidationError synchronously, or with errorHandler hands it over and never throws', () => {
    const bare = new Analytics('hostile-key', { enable: false })
    const handled: Error[] = []
    const withHandler = new Analytics('hostile-key', { enable: false, errorHandler: (err) => handled.push(err) })
    const problems: string[] = []
    CASES.forEach((c) => {
      const refused = results.get(c.name)?.error ?? results.get(c.name)?.thrown
      let thrown: unknown
      try {
        sender(bare, method)(c.make(validMessage(method, 'again'), method))
      } catch (err) {
        thrown = err
      }
      if (refused === undefined && thrown !== undefined)
        problems.push(`${c.name}: threw ${String(thrown)} though the same message was accepted`)
      if (refused !== undefined && !(thrown instanceof ValidationError))
        problems.push(`${c.name}: did not throw a ValidationError (${String(thrown)})`)
      const before = handled.length
      try {
        sender(withHandler, method)(c.make(validMessage(method, 'again'), method))
      } catch (err) {
        problems.push(`${c.name}: threw ${String(err)} with an errorHandler`)
      }
      if (refused !== undefined && !(handled.length === before + 1 && handled[before] instanceof ValidationError)) {
        problems.push(`${c.name}: errorHandler did not get one ValidationError`)
      }
    })
    expect(problems).toEqual([])
  })
})
