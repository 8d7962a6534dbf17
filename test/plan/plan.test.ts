import { z } from 'zod'
import * as v from 'valibot'
import { Analytics, PlanViolationError } from '../../src'
import { definePlan, type TrackingPlan } from '../../src/plan'
import { startTestServer, type TestServer } from '../helpers/test-server'

// Tracking plans checked on the call, in each mode, over real HTTP, with Zod and with Valibot.

let server: TestServer
let warnings: jest.SpyInstance
beforeEach(async () => {
  warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => {})
  server = await startTestServer()
})
afterEach(async () => {
  warnings.mockRestore()
  await server.close()
})

const zodPlan = definePlan({
  events: {
    'Order Completed': z.object({ orderId: z.string(), total: z.number(), currency: z.enum(['USD', 'EUR']) }),
    'Signed Up': z.object({ plan: z.enum(['free', 'pro']) }),
  },
  traits: z.object({ email: z.string().optional() }),
  groupTraits: z.object({ name: z.string() }),
})

const valibotPlan = definePlan({
  events: { 'Order Completed': v.object({ orderId: v.string(), total: v.number() }) },
})

const ORDER = { orderId: 'o1', total: 42, currency: 'USD' as const }

function client(mode: 'off' | 'report' | 'drop' | 'throw' | undefined, plan: TrackingPlan<any, any, any> = zodPlan) {
  return new Analytics('key', { host: server.url, plan, ...(mode === undefined ? {} : { planMode: mode }) })
}

describe('a tracking plan', () => {
  it("lets a call that matches go as the caller wrote it (not the schema's output: Zod strips unknown keys)", async () => {
    const analytics = client('throw')
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { ...ORDER, coupon: 'X' } })
    await analytics.flush()
    expect(server.messages[0].properties).toEqual({ ...ORDER, coupon: 'X' })
    expect(analytics.stats().violations).toBe(0)
  })

  it('in report mode: sends the message, emits a violation, counts it, and warns once per event name', async () => {
    const analytics = client('report')
    const violations: PlanViolationError[] = []
    analytics.on('violation', (e) => violations.push(e))
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { ...ORDER, total: '42' } })
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { ...ORDER, total: '43' } })
    analytics.identify({ userId: 'u1', traits: { email: 7 } })
    await analytics.flush()
    expect(server.messages).toHaveLength(3)
    expect(violations).toHaveLength(3)
    expect(violations[0].message).toBe(
      'track "Order Completed": "properties.total" breaks the tracking plan: Invalid input: expected number, received string',
    )
    expect(violations[0].field).toBe('properties.total')
    expect(violations[0].event).toBe('Order Completed')
    expect(violations[2].message).toBe('identify: "traits.email" breaks the tracking plan: Invalid input: expected string, received number')
    expect(analytics.stats()).toMatchObject({ violations: 3, sent: 3, dropped: 0 })
    expect(warnings.mock.calls.map(([message, options]) => [options, message])).toEqual([
      [{ code: 'EVENTRAIL_PLAN_VIOLATION' }, expect.any(String)],
      [{ code: 'EVENTRAIL_PLAN_VIOLATION' }, expect.any(String)],
    ])
    expect(warnings.mock.calls.map(([message]) => message)).toEqual([
      'eventrail: track "Order Completed": "properties.total" breaks the tracking plan: Invalid input: expected number, received string. Sent anyway (planMode "report"); this warning is shown once per event.',
      'eventrail: identify: "traits.email" breaks the tracking plan: Invalid input: expected string, received number. Sent anyway (planMode "report"); this warning is shown once per event.',
    ])
  })

  it('in drop mode: does not send it, and its callback gets the PlanViolationError listing every issue', async () => {
    const analytics = client('drop')
    const seen: (Error | undefined)[] = []
    expect(() =>
      analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 1, total: 'x', currency: 'USD' } }, (e) =>
        seen.push(e),
      ),
    ).not.toThrow()
    expect(() => analytics.group({ userId: 'u1', groupId: 'g1', traits: {} })).not.toThrow()
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } })
    await analytics.flush()
    expect(server.messages.map((m) => m.event)).toEqual(['Signed Up'])
    expect(seen[0]).toBeInstanceOf(PlanViolationError)
    expect(seen[0]?.message).toBe(
      'track "Order Completed": "properties.orderId" breaks the tracking plan: Invalid input: expected string, received number (and 1 more: "properties.total" Invalid input: expected number, received string)',
    )
    expect((seen[0] as PlanViolationError).issues).toHaveLength(2)
    expect(analytics.stats()).toMatchObject({ violations: 2, dropped: 2, sent: 1 })
  })

  it('in throw mode: throws from the call (like an invalid message) unless a callback takes the error', () => {
    const analytics = client('throw')
    expect(() => analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })).toThrow(
      'track "Signed Up": "properties.plan" breaks the tracking plan:',
    )
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } }, (e) => seen.push(e))
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => expect(seen[0]).toBeInstanceOf(PlanViolationError))
  })

  it('treats an event it does not name as a violation, unless the plan allows unplanned events', async () => {
    expect(() => client('throw').track({ userId: 'u1', event: 'Unknown' })).toThrow(
      'track "Unknown": "event" breaks the tracking plan: is not an event of the tracking plan',
    )
    const open = definePlan({ events: {}, allowUnplanned: true })
    const analytics = new Analytics('key', { host: server.url, plan: open, planMode: 'throw' })
    analytics.track({ userId: 'u1', event: 'Anything' })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
  })

  it('in off mode: checks nothing', async () => {
    const analytics = client('off')
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(analytics.stats().violations).toBe(0)
  })

  it('defaults to throw under NODE_ENV=test (jest sets it)', () => {
    expect(process.env.NODE_ENV).toBe('test')
    expect(() => client(undefined).track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })).toThrow(PlanViolationError)
  })

  it('defaults to report elsewhere, never to drop', async () => {
    const saved = process.env.NODE_ENV
    process.env.NODE_ENV = 'production'
    try {
      const analytics = client(undefined)
      analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })
      await analytics.flush()
      expect(server.messages).toHaveLength(1)
      expect(analytics.stats().violations).toBe(1)
    } finally {
      process.env.NODE_ENV = saved
    }
  })

  it('defaults to report where the environment cannot be read (Deno without --allow-env throws)', async () => {
    const env = Object.getOwnPropertyDescriptor(process, 'env') as PropertyDescriptor
    Object.defineProperty(process, 'env', {
      configurable: true,
      get() {
        throw new Error('NotCapable: Requires env access')
      },
    })
    let analytics: Analytics
    try {
      analytics = client(undefined)
    } finally {
      Object.defineProperty(process, 'env', env)
    }
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(analytics.stats().violations).toBe(1)
  })

  it('works with Valibot schemas', async () => {
    const analytics = client('drop', valibotPlan)
    const seen: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o1', total: 'x' } }, (e) => seen.push(e))
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o1', total: 1 } })
    await analytics.flush()
    expect(server.messages).toHaveLength(1)
    expect(seen[0]?.message).toBe(
      'track "Order Completed": "properties.total" breaks the tracking plan: Invalid type: Expected number but received "x"',
    )
  })

  it("runs before plugins, on the caller's input", async () => {
    const analytics = new Analytics('key', {
      host: server.url,
      plan: zodPlan,
      planMode: 'drop',
      plugins: [{ name: 'fix', process: (m) => void (m.type === 'track' && m.properties && (m.properties.plan = 'pro')) }],
    })
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } as never })
    await analytics.flush()
    expect(server.messages).toHaveLength(0)
  })

  it('reports a schema that validates asynchronously once, and lets its messages go unchecked', async () => {
    const asyncSchema = {
      '~standard': { version: 1 as const, vendor: 'test', validate: () => Promise.resolve({ issues: [{ message: 'no' }] }) },
    }
    const plan = definePlan({ events: { E: asyncSchema } })
    const analytics = new Analytics('key', { host: server.url, plan, planMode: 'throw' })
    const errors: Error[] = []
    analytics.on('error', (e) => errors.push(e))
    analytics.track({ userId: 'u1', event: 'E' }).track({ userId: 'u2', event: 'E' })
    await analytics.flush()
    expect(server.messages).toHaveLength(2)
    expect(errors.map((e) => e.message)).toEqual([
      'tracking plan: the schema of event "E" validates asynchronously; only synchronous schemas are checked on the call, so event "E" goes unchecked',
    ])
  })
})

describe('definePlan and the plan options', () => {
  it('exports JSON Schema from Zod schemas, and names the schema that cannot be converted', () => {
    const json = zodPlan.toJSONSchema()
    expect(json).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', 'x-eventrail-plan': 1, allowUnplanned: false })
    expect(json.definitions.events['Signed Up']).toEqual({
      type: 'object',
      properties: { plan: { type: 'string', enum: ['free', 'pro'] } },
      required: ['plan'],
    })
    expect(json.definitions.groupTraits).toMatchObject({ required: ['name'] })
    expect(() => valibotPlan.toJSONSchema()).toThrow(
      'toJSONSchema: "events["Order Completed"]" has no JSON Schema: its library (valibot) does not implement Standard JSON Schema',
    )
  })

  it.each([
    [() => definePlan({ events: { E: {} as never } }), 'definePlan: "events["E"]" must be a Standard Schema v1'],
    [
      () => new Analytics('key', { plan: { events: [] } as never }),
      'Analytics: "plan" must be a plan made with definePlan() from \'eventrail/plan\'',
    ],
    [
      () => new Analytics('key', { plan: zodPlan, planMode: 'warn' as never }),
      'Analytics: "planMode" must be "off", "report", "drop" or "throw"',
    ],
  ])('checks its input (%#)', (make, message) => {
    expect(make).toThrow(message)
  })
})
