import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import { z } from 'zod'
import { createCollector } from '../../src/collector'
import { compilePattern, matchesPattern, MAX_PATTERN_STEPS } from '../../src/collector/pattern-match'
import { schemaViolations } from '../../src/collector/plan-schema'
import { definePlan } from '../../src/plan'
import { basic, post } from './helpers'

// The patterns of a tracking plan (`eventrail dev --plan`) run on strings that anyone who can
// reach the collector sends, a web page included. They run in linear time: a pattern with nested
// quantifiers cannot block the collector, and one that cannot be run so is refused at load.

// The pattern: nested quantifiers, 5 s of backtracking on 38 letters with RegExp.
const NESTED = '^([a-z0-9]+[-._]?)+@example\\.com$'

function planWith(pattern: string): object {
  return {
    'x-eventrail-plan': 1,
    definitions: { events: {}, traits: { type: 'object', properties: { email: { type: 'string', pattern } } } },
  }
}

describe('a plan whose pattern cannot be checked in linear time', () => {
  it('is refused when the collector starts, naming the pattern and the rule', async () => {
    await expect(createCollector({ plan: planWith('^(a+)\\1@example\\.com$') })).rejects.toThrow(
      'createCollector: "plan.definitions.traits.properties.email.pattern" has a backreference (\\1), which cannot be checked in linear time: write the alternatives out instead (the pattern "^(a+)\\\\1@example\\\\.com$"; see "Patterns" in docs/tracking-plans.md)',
    )
    await expect(createCollector({ plan: planWith('(?<user>a)\\k<user>') })).rejects.toThrow('has a backreference (\\k)')
    await expect(createCollector({ plan: planWith('^(?:(?:[a-z]{100}){100}){100}$') })).rejects.toThrow(
      '"plan.definitions.traits.properties.email.pattern" is too large to check (more than 5000 states',
    )
  })

  const cli = join(__dirname, '../../dist/cli.cjs')
  ;(existsSync(cli) ? it : it.skip)(
    'stops eventrail dev --plan with the error (the built bin; npm test builds it)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'eventrail-plan-'))
      try {
        const file = join(dir, 'plan.json')
        await writeFile(file, JSON.stringify(planWith('^(a+)\\1$')))
        const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
          // A collector that starts runs until it is stopped: killed after 10 s, it fails the test.
          const args = [cli, 'dev', '--port', '0', '--plan', file]
          const child = execFile(process.execPath, args, { timeout: 10_000 }, (err, _stdout, stderr) =>
            resolve({ code: err === null ? 0 : (child.exitCode ?? null), stderr }),
          )
        })
        expect(result.code).toBe(1)
        expect(result.stderr).toContain(
          'eventrail: createCollector: "plan.definitions.traits.properties.email.pattern" has a backreference (\\1)',
        )
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
    20_000,
  )

  it('is refused wherever it is in the plan: an event of definePlan, inside anyOf and items', async () => {
    const plan = definePlan({
      events: { 'Signed Up': z.object({ codes: z.array(z.union([z.number(), z.string().regex(/^(ab)\1$/)])) }) },
    })
    await expect(createCollector({ plan: plan.toJSONSchema() })).rejects.toThrow(
      /"plan\.definitions\.events\["Signed Up"\]\.properties\.codes\.items\.anyOf\[1\]\.pattern" has a backreference \(\\1\)/,
    )
    // A "pattern" that is data (const, enum, default, examples) is not a pattern.
    const data = { 'x-eventrail-plan': 1, definitions: { events: { E: { const: { pattern: '(a)\\1' } } } } }
    const collector = await createCollector({ plan: data })
    await collector.close()
  })
})

describe('the patterns of an accepted plan', () => {
  it("check zod's formats (email, hostname, IPv6, duration, emoji) as RegExp would, lookarounds included", async () => {
    const plan = definePlan({
      events: {
        Contact: z.object({ email: z.email(), host: z.hostname(), ip: z.ipv6(), took: z.iso.duration(), mood: z.emoji() }),
      },
    })
    const collector = await createCollector({ writeKeys: ['key'], plan: plan.toJSONSchema() })
    try {
      const good = { email: 'ann.lee+x@mail.example.com', host: 'api.example.com', ip: '2001:db8::1', took: 'P1DT2H', mood: '🙂' }
      const bad = { email: 'ann@@example', host: '-bad-.com', ip: '2001:::1', took: 'P1W2D', mood: 'happy' }
      for (const properties of [good, bad]) {
        expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'Contact', properties }, { writeKey: 'key' })).status).toBe(
          200,
        )
      }
      expect(collector.messages.map((r) => r.violations?.map((v) => v.path))).toEqual([
        [],
        ['properties.email', 'properties.host', 'properties.ip', 'properties.took', 'properties.mood'],
      ])
    } finally {
      await collector.close()
    }
  })

  it.each([
    [NESTED, 'ann.lee@example.com', true],
    [NESTED, 'a'.repeat(20) + '!', false],
    ['(?<=a)b', 'cab', true],
    ['(?<!a)b', 'ab', false],
    ['^(?!.*W)P\\d+D$', 'P3D', true],
    ['\\bfoo\\b', 'a foo.', true],
    ['^(a|ab)(c|bcd)(d*)$', 'abcd', true],
    ['^\\uD83D\\uDE00+$', '😀😀', true],
    ['^(?:)*x{2,3}?$', 'xxxx', false],
  ])('%s on %j: %s', (pattern, value, expected) => {
    expect(new RegExp(pattern, 'u').test(value)).toBe(expected)
    expect(matchesPattern(compilePattern(pattern), value)).toBe(expected)
  })
})

it("bound a message's pattern work: past its budget of steps, a string is not checked against its pattern", () => {
  const pattern = '^[a-z]{0,999}!$' // about 2,000 states
  const size = compilePattern(pattern).size
  const items = Array.from({ length: 10 }, () => 'a'.repeat(700)) // none has its "!"
  const checked = Math.floor(MAX_PATTERN_STEPS / (701 * size))
  expect(checked).toBeGreaterThan(0)
  expect(checked).toBeLessThan(items.length)
  const violations = schemaViolations({ type: 'array', items: { type: 'string', pattern } }, items, 'properties.codes')
  expect(violations.map((v) => v.path)).toEqual(items.slice(0, checked).map((_, i) => `properties.codes[${i}]`))
  // Each message has its own budget.
  expect(schemaViolations({ type: 'string', pattern }, 'a', 'traits.code')).toHaveLength(1)
})

// zod's own patterns (email, base64, hostname, IPv6, duration, emoji) and the constructs the
// automaton reads, against RegExp on the same strings: some that match, and random ones.
const ZOD = definePlan({
  events: {
    E: z.object({ a: z.email(), b: z.base64(), c: z.hostname(), d: z.ipv6(), e: z.iso.duration(), f: z.emoji(), g: z.iso.datetime() }),
  },
})
const ZOD_PATTERNS = Object.values(
  (ZOD.toJSONSchema().definitions.events.E as { properties: Record<string, { pattern: string }> }).properties,
).map((p) => p.pattern)

it('the automaton agrees with RegExp on every string tried', () => {
  const patterns = [
    ...ZOD_PATTERNS,
    NESTED,
    '(?=(?<=a)b)',
    'a|b|',
    '[^]',
    '[]',
    'a.c',
    '^.*x$',
    '\\Bo',
    '(?<n>a)b\\0?',
    '^\\u{1F600}\\x41\\cJ$',
  ]
  const alphabet = [...'abcdxy019.-@:TPWYMDSH=+/ foAem_F', '😀', '🙂', '\n']
  const samples = [
    '',
    'a@b.co',
    'ann.lee+x@mail.example.com',
    'P1Y2M3DT4H5M6.5S',
    'P3W',
    'ab==',
    'api.example.com',
    '2001:db8::1',
    '😀',
    'cab',
    'bo',
  ]
  let seed = 42
  const random = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n
  for (let i = 0; i < 300; i++) samples.push(Array.from({ length: random(14) }, () => alphabet[random(alphabet.length)]).join(''))
  const disagreements: string[] = []
  for (const pattern of patterns) {
    const native = new RegExp(pattern, 'u')
    const compiled = compilePattern(pattern)
    for (const value of samples) {
      if (native.test(value) !== matchesPattern(compiled, value)) disagreements.push(`${pattern} on ${JSON.stringify(value)}`)
    }
  }
  expect(disagreements).toEqual([])
})

// POSTs an identify; a collector that does not answer fails the test (the request is aborted).
async function identify(url: string, email: string): Promise<number> {
  const response = await fetch(`${url}/v1/identify`, {
    method: 'POST',
    headers: { authorization: basic('key'), 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'u', traits: { email } }),
    signal: AbortSignal.timeout(10_000),
  })
  await response.text()
  return response.status
}

// The collector runs in a child process, bundled from src: a backtracking pattern blocks the event
// loop it runs on, and this test's own timers must keep running to fail.
describe('a collector whose plan has nested quantifiers', () => {
  let dir: string
  let child: ChildProcess
  let url: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventrail-redos-'))
    const bundle = join(dir, 'collector.cjs')
    buildSync({
      entryPoints: [join(__dirname, '../../src/collector/index.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'error',
    })
    const script = `require(${JSON.stringify(bundle)}).createCollector({ writeKeys: ['key'], plan: JSON.parse(process.argv[1]) })
      .then((c) => process.stdout.write('url ' + c.url + '\\n'), (err) => { process.stdout.write('error ' + err.message + '\\n'); process.exit(1) })`
    child = spawn(process.execPath, ['-e', script, JSON.stringify(planWith(NESTED))], { stdio: ['ignore', 'pipe', 'inherit'] })
    url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /^url (\S+)$/m.exec(out)
        if (match) resolve(match[1])
        else if (out.includes('\n')) reject(new Error(out))
      })
      child.once('exit', () => reject(new Error(`the collector exited: ${out}`)))
    })
  }, 30_000)
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL')
      await new Promise((resolve) => child.once('exit', resolve))
    }
    await rm(dir, { recursive: true, force: true })
  })

  it('answers a hostile identify, judges it, and goes on answering', async () => {
    // The 76-byte identify (38 letters: 5 s with RegExp), then 5,000 letters (RegExp: never).
    for (const n of [38, 5_000]) expect(await identify(url, 'a'.repeat(n) + '!')).toBe(200)
    expect(await identify(url, 'ann.lee@example.com')).toBe(200)
    const records = (await (await fetch(`${url}/api/messages`, { signal: AbortSignal.timeout(10_000) })).json()) as {
      messages: { violations?: { path: string; message: string }[] }[]
    }
    expect(records.messages.map((r) => r.violations)).toEqual([
      [{ path: 'traits.email', message: `must match the pattern ${NESTED}` }],
      [{ path: 'traits.email', message: `must match the pattern ${NESTED}` }],
      [],
    ])
  }, 30_000)
})
