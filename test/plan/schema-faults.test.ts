import { Analytics, PlanSchemaError } from '../../src'
import { definePlan, type StandardSchemaV1 } from '../../src/plan'
import { serveEachTest, type TestServer } from '../helpers/test-server'

// A schema of the plan that fails (throws, returns something that is not a Standard Schema
// result, or a result that cannot be read) is the plan's fault, not the call's: track() never
// throws for it, and each message gets exactly one outcome, in every plan mode. Over real HTTP.

let server: TestServer
serveEachTest((s) => (server = s))
let warnings: jest.SpyInstance
beforeEach(() => (warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => {})))
afterEach(() => warnings.mockRestore())

function schema(validate: (value: unknown) => unknown): StandardSchemaV1 {
  return { '~standard': { version: 1, vendor: 'test', validate: validate as StandardSchemaV1['~standard']['validate'] } }
}

const revoked = Proxy.revocable({}, {})
revoked.revoke()

const FAULTS: [string, (value: unknown) => unknown][] = [
  [
    'throws',
    () => {
      throw new TypeError('schema bug')
    },
  ],
  ['returns null', () => null],
  ['returns issues that are not an array', () => ({ issues: 'bad' })],
  ['returns an issue that is null', () => ({ issues: [null] })],
  [
    'returns a result whose issues getter throws',
    () => ({
      get issues() {
        throw new Error('getter')
      },
    }),
  ],
  ['returns a revoked Proxy', () => revoked.proxy],
  [
    'returns a result whose then getter throws',
    () => ({
      get then() {
        throw new Error('then getter')
      },
    }),
  ],
  [
    'returns an issue whose message getter throws',
    () => ({
      issues: [
        {
          get message() {
            throw new Error('message getter')
          },
        },
      ],
    }),
  ],
]

function client(mode: 'report' | 'drop' | 'throw', validate: (value: unknown) => unknown, errors: Error[]) {
  const plan = definePlan({ events: { 'Order Completed': schema(validate) }, traits: schema(validate) })
  return new Analytics('key', { host: server.url, plan, planMode: mode, errorHandler: (e) => errors.push(e) })
}

const ORDER = { userId: 'u1', event: 'Order Completed', properties: { total: 1 } } as const

describe.each(['drop', 'throw'] as const)('in planMode %s, a schema that fails', (mode) => {
  it.each(FAULTS)('(%s) refuses the message with one PlanSchemaError to its callback; track() does not throw', async (_, validate) => {
    const errors: Error[] = []
    const analytics = client(mode, validate, errors)
    const outcomes: (Error | undefined)[][] = [[], []]
    expect(() => analytics.track(ORDER, (err) => outcomes[0].push(err))).not.toThrow()
    expect(() => analytics.identify({ userId: 'u1', traits: { a: 1 } }, (err) => outcomes[1].push(err))).not.toThrow()
    await analytics.closeAndFlush()
    expect(server.messages).toEqual([])
    for (const seen of outcomes) {
      expect(seen).toHaveLength(1)
      expect(seen[0]).toBeInstanceOf(PlanSchemaError)
    }
    const [track, identify] = outcomes.map((seen) => seen[0] as PlanSchemaError)
    expect(track.message).toMatch(
      /^track "Order Completed": the tracking plan's schema events\["Order Completed"\] .+; the message was not sent$/,
    )
    expect({ event: track.event, schema: track.schema, sentAnyway: track.sentAnyway }).toEqual({
      event: 'Order Completed',
      schema: 'events["Order Completed"]',
      sentAnyway: false,
    })
    expect(identify.schema).toBe('traits')
    // The callback had it: errorHandler did not get it a second time.
    expect(errors).toEqual([])
    expect(analytics.stats().refusedBy).toEqual({ plan_error: 2 })
  })

  it('gives the error to errorHandler, once per message, when there is no callback', async () => {
    const errors: Error[] = []
    const analytics = client(mode, FAULTS[0][1], errors)
    for (let i = 0; i < 3; i++) expect(() => analytics.track(ORDER)).not.toThrow()
    await analytics.closeAndFlush()
    expect(errors).toHaveLength(3)
    expect(errors[0]).toBeInstanceOf(PlanSchemaError)
    expect(errors[0].message).toBe(
      'track "Order Completed": the tracking plan\'s schema events["Order Completed"] threw TypeError: schema bug, so the message could not be checked; the message was not sent',
    )
    expect((errors[0] as PlanSchemaError).cause).toBeInstanceOf(TypeError)
  })
})

describe('in planMode report, a schema that fails', () => {
  it.each(FAULTS)('(%s) lets the message go unchecked and reports the error; track() does not throw', async (_, validate) => {
    const errors: Error[] = []
    const analytics = client('report', validate, errors)
    const seen: (Error | undefined)[] = []
    expect(() => analytics.track(ORDER, (err) => seen.push(err))).not.toThrow()
    expect(() => analytics.identify({ userId: 'u1', traits: { a: 1 } }, (err) => seen.push(err))).not.toThrow()
    await analytics.closeAndFlush()
    expect(seen).toEqual([undefined, undefined])
    expect(server.messages.map((m) => m.type)).toEqual(['track', 'identify'])
    expect(errors).toHaveLength(2)
    expect(errors.every((e) => e instanceof PlanSchemaError && e.sentAnyway)).toBe(true)
    expect(errors[0].message).toMatch(/; the message was sent unchecked \(planMode "report"\)$/)
  })
})

describe('a schema that returns a rejecting promise', () => {
  it.each(['report', 'drop', 'throw'] as const)(
    'in planMode %s: the message goes unchecked (an async schema), with one outcome and no unhandled rejection',
    async (mode) => {
      const errors: Error[] = []
      const analytics = client(mode, () => Promise.reject(new Error('async schema down')), errors)
      const seen: (Error | undefined)[] = []
      expect(() => analytics.track(ORDER, (err) => seen.push(err))).not.toThrow()
      await analytics.closeAndFlush()
      expect(seen).toEqual([undefined])
      expect(server.messages).toHaveLength(1)
      expect(errors.map((e) => e.message)).toEqual([
        'tracking plan: the schema of event "Order Completed" validates asynchronously; only synchronous schemas are checked on the call, so event "Order Completed" goes unchecked',
      ])
    },
  )
})
