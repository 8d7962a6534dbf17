import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createCollector, type Collector } from '../../src/collector'

// Type-checks every example with examples/tsconfig.json (one tsc run that also emits them), then
// runs each as its own process against a local collector on 127.0.0.1, the way a user would:
// the examples import 'eventrail', which resolves to the built dist/ through package.json exports.
const ROOT = join(__dirname, '..', '..')
const OUT = join(ROOT, '.examples-build', `jest-${process.pid}`)
const WRITE_KEY = 'EXAMPLES_WRITE_KEY'

let collector: Collector
const children: ChildProcess[] = []

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'examples/tsconfig.json', '--outDir', OUT, '--pretty', 'false'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    },
  )
  if (tsc.status !== 0) throw new Error(`examples do not type-check:\n${tsc.stdout}${tsc.stderr}`)
})
afterAll(() => rmSync(OUT, { recursive: true, force: true }))

beforeEach(async () => {
  collector = await createCollector()
})
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await collector.close()
})

interface Run {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function start(example: string, env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [join(OUT, `${example}.js`)], {
    cwd: ROOT,
    env: { ...process.env, EVENTRAIL_HOST: collector.url, EVENTRAIL_WRITE_KEY: WRITE_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

function accepted(event?: string) {
  return collector.messages.filter((r) => r.verdict === 'accepted' && (event === undefined || r.message.event === event))
}

describe('examples', () => {
  it('typed-events.ts sends its identify, group and three tracks, all accepted', async () => {
    const run = start('typed-events')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('5 messages sent')
    expect(collector.messages.map((r) => [r.type, r.verdict])).toEqual([
      ['identify', 'accepted'],
      ['group', 'accepted'],
      ['track', 'accepted'],
      ['track', 'accepted'],
      ['track', 'accepted'],
    ])
    expect(accepted('Order Completed')[0].message.properties).toEqual({ orderId: 'o-1001', total: 39, currency: 'EUR' })
  })

  it('serverless.ts delivers every message before the handler returns, although the process ends right after', async () => {
    const run = start('serverless')
    expect(await run.exited).toBe(0)
    expect(JSON.parse(run.output().trim())).toEqual({ statusCode: 200, body: JSON.stringify({ pages: 12 }) })
    expect(accepted().map((r) => r.message.event)).toEqual(['Report Requested', 'Report Generated'])
    expect(accepted().every((r) => r.writeKey === WRITE_KEY)).toBe(true)
  })

  it('multi-tenant.ts sends with one write key per tenant and drains them all on shutdown', async () => {
    const run = start('multi-tenant', { EVENTRAIL_TENANT_KEYS: 'KEY_A,KEY_B,KEY_C' })
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('3 tenants')
    const perKey: Record<string, number> = {}
    for (const record of accepted('Document Saved')) perKey[record.writeKey ?? ''] = (perKey[record.writeKey ?? ''] ?? 0) + 1
    expect(perKey).toEqual({ KEY_A: 1, KEY_B: 2, KEY_C: 3 })
  })

  it('express-server.ts tracks each order on its route and sends them all when stopped with SIGTERM', async () => {
    const run = start('express-server', { PORT: '0' })
    const url = await new Promise<string>((resolve, reject) => {
      run.child.stdout?.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(run.output())
        if (match) resolve(match[1])
      })
      void run.exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${run.output()}`)))
    })
    const order = (body: object) =>
      fetch(url + '/orders', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Connection: 'close' },
        body: JSON.stringify(body),
      })

    const responses = [await order({ userId: 'u1', total: 42 }), await order({ userId: 'u2', total: 7 }), await order({ userId: 'u3' })]
    expect(responses.map((r) => r.status)).toEqual([201, 201, 400])
    const orderIds = await Promise.all(responses.slice(0, 2).map(async (r) => ((await r.json()) as { orderId: string }).orderId))

    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('drained: 2 sent, 0 failed')
    expect(accepted('Order Completed').map((r) => r.message.properties)).toEqual([
      { orderId: orderIds[0], total: 42 },
      { orderId: orderIds[1], total: 7 },
    ])
  })

  it("request-context.ts gives each message its request's identity, page and consent, and withholds what consent does not cover", async () => {
    const run = start('request-context', { PORT: '0' })
    const url = await new Promise<string>((resolve, reject) => {
      run.child.stdout?.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(run.output())
        if (match) resolve(match[1])
      })
      void run.exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${run.output()}`)))
    })
    const visit = (headers: Record<string, string>) =>
      fetch(`${url}/pricing?utm_source=newsletter`, { headers: { Connection: 'close', 'X-Forwarded-For': '203.0.113.9', ...headers } })
    const everything = await visit({ Cookie: 'ajs_anonymous_id=%22anon-1%22; consent=analytics,advertising' })
    const gpc = await visit({ Cookie: 'ajs_anonymous_id=anon-2; consent=analytics,advertising', 'Sec-GPC': '1' })
    const first = await visit({})
    expect(await Promise.all([everything, gpc, first].map((r) => r.json()))).toEqual([
      { adTracked: true },
      { adTracked: false },
      { adTracked: false },
    ])
    expect(first.headers.get('set-cookie')).toMatch(/^ajs_anonymous_id=%22[0-9a-f-]{36}%22; /)

    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('withheld for consent: Advertising (GPC)')
    expect(run.output()).toContain('drained: 3 sent, 3 withheld for consent')
    const pages = accepted().filter((r) => r.type === 'page')
    expect(pages.map((r) => r.message.anonymousId)).toEqual(['anon-1', 'anon-2'])
    expect(pages[0].message.context).toMatchObject({ ip: '203.0.113.9', campaign: { source: 'newsletter' }, page: { path: '/pricing' } })
    expect((pages[1].message.context as { consent?: unknown }).consent).toEqual({
      categoryPreferences: { Analytics: true, Advertising: false },
    })
    expect(accepted('Ad Impression').map((r) => r.message.anonymousId)).toEqual(['anon-1'])
  })

  it('plugins.ts scrubs PII, adds the region and the app, and filters the bot page', async () => {
    const run = start('plugins')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('bot page: page: filtered by plugin "drop-bots" (it returned null); the message was not sent')
    expect(run.output()).toContain('filtered 1, sent 2')
    const [identify, ticket] = accepted().map((r) => r.message as any)
    expect(identify.traits).toEqual({ name: 'Ada', plan: 'pro' })
    expect(ticket.properties.text).toBe('Call me at [phone] or [email]')
    expect(ticket.context).toMatchObject({ app: { name: 'shop-api', version: '1.4.0' }, region: 'eu-west-1' })
    expect(collector.messages).toHaveLength(2)
  })

  it('plan-zod.ts reports the violation and sends it anyway; its JSON Schema feeds eventrail dev --plan', async () => {
    const run = start('plan-zod')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain(
      'violation: track "Order Completed": "properties.total" breaks the tracking plan: Invalid input: expected number, received string',
    )
    expect(run.output()).toContain('sent 3, violations 1')
    const file = join(OUT, 'plan.json')
    const written = spawnSync(process.execPath, [join(OUT, 'plan-zod.js'), file], { cwd: ROOT, encoding: 'utf8' })
    expect(written.stdout).toContain(`wrote the plan's JSON Schema to ${file}`)
    const planned = await createCollector({ plan: JSON.parse(readFileSync(file, 'utf8')) })
    try {
      const replay = spawn(process.execPath, [join(OUT, 'plan-zod.js')], {
        cwd: ROOT,
        env: { ...process.env, EVENTRAIL_HOST: planned.url, EVENTRAIL_WRITE_KEY: WRITE_KEY },
        stdio: 'ignore',
      })
      await new Promise((resolve) => replay.once('exit', resolve))
      expect(planned.messages.map((r) => r.violations?.length)).toEqual([0, 0, 1])
    } finally {
      await planned.close()
    }
  })

  it('plan-valibot.ts drops the call that breaks the plan and says why', async () => {
    const run = start('plan-valibot')
    expect(await run.exited).toBe(0)
    expect(run.output()).toContain('sent: 184 s')
    expect(run.output()).toContain(
      'not sent: track "Song Played": "properties.seconds" breaks the tracking plan: Invalid value: Expected >=0 but received -3',
    )
    expect(accepted('Song Played')).toHaveLength(1)
  })

  it("otel-prometheus.ts exposes the client's health on a Prometheus endpoint", async () => {
    const run = start('otel-prometheus')
    expect(await run.exited).toBe(0)
    const out = run.output()
    expect(out).toMatch(/^eventrail_message_processed(_total)?\{[^}]*otel_component_name="shop-api"[^}]*\} 1/m)
    expect(out).toMatch(/^eventrail_message_processed(_total)?\{[^}]*error_type="invalid"[^}]*\} 1/m)
    expect(out).toMatch(/^eventrail_exporter_message_exported(_total)?\{[^}]*\} 1/m)
    expect(out).not.toContain(WRITE_KEY)
  })
})
