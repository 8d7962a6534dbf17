import * as http from 'node:http'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Analytics, ConsentError, type AnalyticsOptions, type DropInfo, type Plugin } from 'eventrail'
import { contextFromRequest, inContext, resolveConsent, withContext, type ConsentOptions } from 'eventrail/context'
import { startTestServer, type TestServer } from '../helpers/test-server'

// Issue 33, consent: "0 events sent whose category was not consented in enforce mode (tested
// through all six methods, deliver.*, plugins and the spool)", GPC mapped to the categories named
// "sale or sharing", both modes explicit, the refusal counted in stats() and the drop event.
const CONSENT: ConsentOptions<Request> = {
  mode: 'enforce',
  read: (request) => {
    const raw = /(?:^|; )consent=([^;]*)/.exec(request.headers.get('cookie') ?? '')?.[1]
    return raw === undefined ? undefined : (JSON.parse(decodeURIComponent(raw)) as Record<string, boolean>)
  },
  defaults: { Necessary: true, Analytics: false, Advertising: false },
  saleOrSharing: ['Advertising'],
  categories: { 'Ad Clicked': ['Advertising'], 'Order Completed': ['Necessary'], '*': ['Analytics'] },
}

function requestWith(preferences: Record<string, boolean> | undefined, gpc = false): Request {
  const headers: Record<string, string> = {}
  if (preferences !== undefined) headers.cookie = `consent=${encodeURIComponent(JSON.stringify(preferences))}`
  if (gpc) headers['sec-gpc'] = '1'
  return new Request('https://shop.example.com/', { headers })
}

let server: TestServer
let dirs: string[] = []
beforeEach(async () => {
  server = await startTestServer()
})
afterEach(async () => {
  await server.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
})

function client(options: AnalyticsOptions = {}): { analytics: Analytics; drops: DropInfo[] } {
  const analytics = new Analytics('KEY', { host: server.url, flushAt: 100, ...options })
  const drops: DropInfo[] = []
  analytics.on('drop', (info) => drops.push(info))
  return { analytics, drops }
}

/** Every kind of call, inside the request's context: the six methods with callbacks, and deliver.*. */
async function callEverything(
  analytics: Analytics,
): Promise<{ errors: (Error | undefined)[]; outcomes: { delivered: boolean; error?: Error }[] }> {
  const a = inContext(analytics)
  const errors: (Error | undefined)[] = []
  const done = (err?: Error) => errors.push(err)
  const outcomes = await Promise.all([
    (a.identify({ traits: { plan: 'pro' } }, done), a.track({ event: 'Ad Clicked' }, done), a.track({ event: 'Order Completed' }, done)),
    (a.page({ name: 'Home' }, done),
    a.screen({ name: 'Home' }, done),
    a.group({ groupId: 'g1' }, done),
    a.alias({ previousId: 'p1', userId: 'u1' }, done)),
    a.deliver.identify({}),
    a.deliver.track({ event: 'Ad Clicked' }),
    a.deliver.track({ event: 'Order Completed' }),
    a.deliver.page({}),
    a.deliver.screen({}),
    a.deliver.group({ groupId: 'g1' }),
    a.deliver.alias({ previousId: 'p1', userId: 'u1' }),
  ])
  await analytics.flush()
  return { errors, outcomes: outcomes.slice(2) as { delivered: boolean; error?: Error }[] }
}

function inRequest<R>(analytics: Analytics, request: Request, fn: () => R): R {
  return withContext(analytics, contextFromRequest(request, { consent: CONSENT, userId: () => 'u1' }), fn)
}

describe("mode 'enforce'", () => {
  it('withholds every message whose category is not consented, through the six methods and deliver.*: none is sent', async () => {
    const { analytics, drops } = client()
    // Only necessary messages: no Analytics, no Advertising (the defaults of an opt-in regime).
    const { errors, outcomes } = await inRequest(analytics, requestWith(undefined), () => callEverything(analytics))
    const sent = server.messages
    expect(sent.map((m) => m.event ?? m.type)).toEqual(['Order Completed', 'Order Completed'])
    expect(sent.every((m) => m.context.consent.categoryPreferences.Analytics === false)).toBe(true)
    expect(errors.filter((e) => e === undefined)).toHaveLength(1)
    expect(errors.filter((e) => ConsentError.is(e))).toHaveLength(6)
    expect(outcomes.map((o) => o.delivered)).toEqual([false, false, true, false, false, false, false])
    const adClick = outcomes[1].error as ConsentError
    expect(adClick).toBeInstanceOf(ConsentError)
    expect(adClick).toMatchObject({ categories: ['Advertising'], gpc: false })
    expect(analytics.stats()).toMatchObject({ sent: 2, dropped: 12, refusedBy: { consent: 12 } })
    expect(drops).toHaveLength(12)
    expect(drops.every((d) => ConsentError.is(d.error))).toBe(true)
    await analytics.closeAndFlush()
  })

  it('sends what the consent manager allows; Sec-GPC: 1 withholds the "sale or sharing" categories whatever the cookie says', async () => {
    const { analytics } = client()
    const everything = { Necessary: true, Analytics: true, Advertising: true }
    await inRequest(analytics, requestWith(everything), () => callEverything(analytics))
    expect(server.messages).toHaveLength(14)
    const before = server.messages.length
    const { outcomes } = await inRequest(analytics, requestWith(everything, true), () => callEverything(analytics))
    const sent = server.messages.slice(before)
    expect(sent.filter((m) => m.event === 'Ad Clicked')).toEqual([])
    expect(sent).toHaveLength(12)
    expect(sent[0].context.consent).toEqual({ categoryPreferences: { Necessary: true, Analytics: true, Advertising: false } })
    expect(outcomes[1].error).toMatchObject({ categories: ['Advertising'], gpc: true })
    expect(analytics.stats().refusedBy).toEqual({ consent: 2 })
    await analytics.closeAndFlush()
  })

  it('a withheld message never reaches the plugins; the others go through them as usual', async () => {
    const seen: string[] = []
    const plugin: Plugin = {
      name: 'seen',
      process: (message) => {
        seen.push(message.type === 'track' ? message.event : message.type)
        // Changing the message's context must not change the request's (the next message's).
        ;(message.context.page as Record<string, unknown>).url = 'changed by the plugin'
      },
    }
    const { analytics } = client({ plugins: [plugin], context: { app: { name: 'shop' } } })
    const { errors } = await inRequest(analytics, requestWith({ Analytics: true }), () => callEverything(analytics))
    expect(errors.filter((e) => e !== undefined)).toHaveLength(1)
    expect(seen.sort()).toEqual([
      'Order Completed',
      'Order Completed',
      'alias',
      'alias',
      'group',
      'group',
      'identify',
      'identify',
      'page',
      'page',
      'screen',
      'screen',
    ])
    expect(server.messages.map((m) => m.event ?? m.type).sort()).toEqual([
      'Order Completed',
      'Order Completed',
      'alias',
      'alias',
      'group',
      'group',
      'identify',
      'identify',
      'page',
      'page',
      'screen',
      'screen',
    ])
    expect(server.messages.every((m) => m.context.app.name === 'shop' && m.context.page.url === 'changed by the plugin')).toBe(true)
    expect(server.messages.every((m) => m.userId === 'u1')).toBe(true)
    await analytics.closeAndFlush()
  })

  it('with a spool, a withheld message is never written to the disk, and no later client sends it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventrail-consent-'))
    dirs.push(dir)
    server.respond = () => 503
    const first = client({ spool: { dir }, maxRetryTime: 500, errorHandler: () => undefined }).analytics
    inRequest(first, requestWith(undefined), () => {
      const a = inContext(first)
      for (let i = 0; i < 50; i++) a.track({ event: i % 2 === 0 ? 'Ad Clicked' : 'Order Completed', properties: { i } })
    })
    const spooled = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((f) => join(dir, f))
      .filter((f) => statSync(f).isFile())
      .map((f) => readFileSync(f).toString('latin1'))
      .join('')
    expect(spooled.match(/Order Completed/g)).toHaveLength(25)
    expect(spooled).not.toMatch(/Ad Clicked/)
    await first.closeAndFlush({ timeout: 1000 })
    server.respond = () => 200
    const second = client({ spool: { dir } }).analytics
    await second.flush()
    expect(server.messages.filter((m) => m.event === 'Ad Clicked')).toEqual([])
    expect(new Set(server.messages.map((m) => m.properties.i)).size).toBe(25)
    await second.closeAndFlush()
  })
})

describe("mode 'stamp'", () => {
  it('stamps context.consent.categoryPreferences on every message and withholds nothing', async () => {
    const { analytics } = client()
    const stamp = { ...CONSENT, mode: 'stamp' as const }
    await withContext(analytics, contextFromRequest(requestWith({ Analytics: true }, true), { consent: stamp, userId: () => 'u1' }), () =>
      callEverything(analytics),
    )
    expect(server.messages).toHaveLength(14)
    for (const m of server.messages)
      expect(m.context.consent).toEqual({ categoryPreferences: { Necessary: true, Analytics: true, Advertising: false } })
    expect(analytics.stats().dropped).toBe(0)
    await analytics.closeAndFlush()
  })

  it("a message's own context.consent wins over the stamp", async () => {
    const { analytics } = client()
    const own = { categoryPreferences: { Analytics: false } }
    withContext(analytics, { userId: 'u1', consent: resolveConsent({ mode: 'stamp' }, undefined, false) }, () => {
      analytics.track({ userId: 'u1', event: 'E', context: { consent: own } })
    })
    await analytics.flush()
    expect(server.messages[0].context.consent).toEqual(own)
    await analytics.closeAndFlush()
  })
})

describe('the consent options', () => {
  it.each([
    [{ mode: 'block' }, /"consent.mode" must be 'stamp' or 'enforce'/],
    [{ mode: 'enforce' }, /"consent.categories" is required/],
    [{ mode: 'stamp', defaults: { Analytics: 'yes' } }, /"consent.defaults.Analytics" must be true or false/],
    [{ mode: 'stamp', read: () => 'all' }, /"consent.read" must be an object/],
  ])('%j is refused, naming the option', (options, message) => {
    expect(() => resolveConsent(options as never, undefined, false)).toThrow(message)
  })
  it('a function gives the categories of each message', () => {
    const consent = resolveConsent(
      { mode: 'enforce', defaults: { A: true }, categories: (type, event) => (type === 'track' && event === 'X' ? ['B'] : ['A']) },
      undefined,
      false,
    )
    expect(consent).toMatchObject({ mode: 'enforce', categoryPreferences: { A: true }, gpc: false, withdrawnByGpc: [] })
  })
})

it('an http server refusing consent per request: only consented requests send, on 127.0.0.1', async () => {
  const { analytics } = client({ flushAt: 1 })
  const app = http.createServer((req, res) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, { headers: req.headers as Record<string, string> })
    void inRequest(analytics, request, () => inContext(analytics).deliver.track({ event: 'Viewed' })).then((o) =>
      res.end(String(o.delivered)),
    )
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const { port } = app.address() as { port: number }
  const ask = (cookie: string) => fetch(`http://127.0.0.1:${port}/`, { headers: { cookie } }).then((r) => r.text())
  const answers = await Promise.all([
    ask(`consent=${encodeURIComponent('{"Analytics":true}')}`),
    ask(''),
    ask(`consent=${encodeURIComponent('{"Analytics":false}')}`),
  ])
  expect(answers).toEqual(['true', 'false', 'false'])
  expect(server.messages).toHaveLength(1)
  await new Promise((resolve) => app.close(resolve))
  await analytics.closeAndFlush()
})
