import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { Analytics } from '../../src'
import { createCollector, type Collector } from '../../src/collector'
import { parseCliArgs } from '../../src/collector/cli-args'
import { formatLine } from '../../src/collector/dev'
import { readPlanFile } from '../../src/collector/plan-file'
import { schemaViolations } from '../../src/collector/plan-schema'
import { definePlan } from '../../src/plan'

// `eventrail dev --plan FILE`: the plan's JSON Schema checks every message the collector accepts,
// and the violations go beside the verdict (records, terminal; the page in browser.test.ts).

const plan = definePlan({
  events: {
    'Order Completed': z.object({ orderId: z.string(), total: z.number().min(0), currency: z.enum(['USD', 'EUR']) }),
    'Signed Up': z.object({ plan: z.enum(['free', 'pro']) }).strict(),
  },
  traits: z.object({ email: z.string() }),
})

describe('the collector with a tracking plan', () => {
  let collector: Collector
  beforeEach(async () => {
    collector = await createCollector({ writeKeys: ['key'], plan: plan.toJSONSchema() })
  })
  afterEach(() => collector.close())

  it("lists each accepted message's violations beside its verdict, from a client with no plan of its own", async () => {
    const analytics = new Analytics('key', { host: collector.url })
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 'o1', total: 42, currency: 'USD' } })
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { orderId: 7, total: -1, currency: 'GBP' } })
    analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro', coupon: 'X' } })
    analytics.track({ userId: 'u1', event: 'Unplanned' })
    analytics.identify({ userId: 'u1', traits: {} })
    analytics.page({ userId: 'u1', name: 'Home' })
    await analytics.flush()
    const records = collector.messages
    expect(records.map((r) => r.verdict)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted'])
    expect(records.map((r) => r.violations)).toEqual([
      [],
      [
        { path: 'properties.orderId', message: 'must be a string (got a number)' },
        { path: 'properties.total', message: 'must be at least 0 (got -1)' },
        { path: 'properties.currency', message: 'must be one of "USD", "EUR" (got "GBP")' },
      ],
      [{ path: 'properties.coupon', message: 'is not a property of the plan' }],
      [{ path: 'event', message: 'is not an event of the tracking plan' }],
      [{ path: 'traits.email', message: 'is required' }],
      undefined,
    ])
    const line = formatLine(records[1], false)
    expect(line).toContain('accepted')
    expect(line).toContain(
      'plan: "properties.orderId" must be a string (got a number); "properties.total" must be at least 0 (got -1); "properties.currency" must be one of "USD", "EUR" (got "GBP")',
    )
    expect(formatLine(records[0], false)).not.toContain('plan:')
  })

  it("refuses something that is not a plan's JSON Schema, naming the option", async () => {
    await expect(createCollector({ plan: { type: 'object' } })).rejects.toThrow(
      'createCollector: "plan" must be the JSON Schema of a tracking plan: the JSON of plan.toJSONSchema() from \'eventrail/plan\'',
    )
  })
})

describe('the JSON Schema subset the debugger checks', () => {
  it.each([
    [{ type: 'integer' }, 1.5, ['must be an integer (got a number)']],
    [{ type: ['string', 'null'] }, null, []],
    [
      { type: 'string', minLength: 2, maxLength: 3, pattern: '^a' },
      'bcde',
      ['must be at most 3 characters (got 4)', 'must match the pattern ^a'],
    ],
    [
      { type: 'array', items: { type: 'number' }, minItems: 3 },
      [1, 'x'],
      ['must have at least 3 items (got 2)', 'must be a number (got a string)'],
    ],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, true, ['must match one of the 2 forms the plan allows (anyOf)']],
    [{ const: 'x' }, 'y', ['must be "x" (got "y")']],
    [{ $ref: '#/definitions/x' }, 1, []],
  ])('%j against %j', (schema, value, messages) => {
    expect(schemaViolations(schema, value, 'v').map((v) => v.message)).toEqual(messages)
  })
})

describe('eventrail dev --plan FILE', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventrail-plan-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('is read from the command line, and the file must be JSON', async () => {
    expect(parseCliArgs(['dev', '--plan', 'plan.json'])).toEqual({
      command: 'dev',
      options: { port: 4040 },
      quiet: false,
      planFile: 'plan.json',
    })
    const file = join(dir, 'plan.json')
    await writeFile(file, JSON.stringify(plan.toJSONSchema()))
    expect(await readPlanFile(file)).toMatchObject({ 'x-eventrail-plan': 1 })
    await writeFile(join(dir, 'bad.json'), 'export const plan = 1')
    await expect(readPlanFile(join(dir, 'bad.json'))).rejects.toThrow(
      /--plan .*bad\.json: the file is not JSON \(.*\); write it with JSON\.stringify\(plan\.toJSONSchema\(\)\)/,
    )
    await expect(readPlanFile(join(dir, 'missing.json'))).rejects.toThrow(/--plan .*missing\.json: the file cannot be read \(ENOENT/)
  })

  const cli = join(__dirname, '../../dist/cli.cjs')
  ;(existsSync(cli) ? it : it.skip)('prints the violations in the terminal (the built bin; npm test builds it)', async () => {
    const file = join(dir, 'plan.json')
    await writeFile(file, JSON.stringify(plan.toJSONSchema()))
    const child = execFile(process.execPath, [cli, 'dev', '--port', '0', '--plan', file, '--write-key', 'key'])
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no address in: ${out}`)), 10_000)
        child.stdout?.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(out)
          if (match) {
            clearTimeout(timer)
            resolve(match[1])
          }
        })
      })
      expect(out).toContain('plan:          2 events (violations shown beside the verdicts)')
      const analytics = new Analytics('key', { host: url })
      analytics.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'gold' } })
      await analytics.flush()
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no violation line in: ${out}`)), 10_000)
        const check = () => {
          if (out.includes('plan: "properties.plan"')) {
            clearTimeout(timer)
            resolve()
          }
        }
        child.stdout?.on('data', check)
        check()
      })
      expect(out).toMatch(/track\s+u1\s+Signed Up\s+accepted.*plan: "properties\.plan" must be one of "free", "pro" \(got "gold"\)/)
    } finally {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
  })
})
