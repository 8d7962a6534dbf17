import * as http from 'node:http'
import express from 'express'
import Fastify from 'fastify'
// @ts-expect-error -- koa ships no declarations, and @types/koa is not installed
import Koa from 'koa'
import { Hono } from 'hono'
import { serve } from '@hono/node-server'
import { NextRequest } from 'next/server'
import { Analytics } from 'eventrail'
import {
  expressContext,
  fastifyContext,
  honoContext,
  inContext,
  koaContext,
  nextContext,
  type RequestContextOptions,
} from 'eventrail/context'
import { startTestServer, type TestServer } from '../helpers/test-server'
import { anonymousIdOf, BROWSER_HEADERS, close, get, listen } from './helpers'

// Issue 33: thin adapters "tested against the real frameworks: Express (and Connect), Fastify,
// Hono, and a Next.js route handler; Koa" on 127.0.0.1. Each app's route awaits a timer and then
// tracks without ids: the message must carry the request's identity and context.
const OPTIONS = { trustProxy: 1, setAnonymousId: { domain: '127.0.0.1' } } satisfies RequestContextOptions<never>
const PATH = '/pricing?utm_source=newsletter&utm_campaign=spring&utm_medium=email'

let collector: TestServer
let analytics: Analytics
const later = () => new Promise((resolve) => setTimeout(resolve, 5))

beforeAll(async () => {
  collector = await startTestServer()
  analytics = new Analytics('KEY', { host: collector.url, flushAt: 1 })
})
afterAll(async () => {
  await analytics.closeAndFlush()
  await collector.close()
})

async function route(): Promise<string> {
  await later()
  const outcome = await inContext(analytics).deliver.track({ event: 'Viewed Pricing' })
  return JSON.stringify(outcome.delivered)
}

type Start = () => Promise<{ url: string; stop: () => Promise<void> }>

const APPS: [string, Start][] = [
  [
    'Express 5',
    async () => {
      const app = express()
      app.use(expressContext(analytics, OPTIONS))
      app.get('/pricing', async (_req, res) => {
        res.send(await route())
      })
      const server = http.createServer(app)
      return { url: await listen(server), stop: () => close(server) }
    },
  ],
  [
    'Connect (a plain Node http server)',
    async () => {
      const middleware = expressContext(analytics, OPTIONS)
      const server = http.createServer((req, res) => middleware(req, res, () => void route().then((body) => res.end(body))))
      return { url: await listen(server), stop: () => close(server) }
    },
  ],
  [
    'Fastify 5',
    async () => {
      const app = Fastify()
      app.addHook('onRequest', fastifyContext(analytics, OPTIONS))
      app.get('/pricing', async () => route())
      await app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = app.server.address() as { port: number }
      return { url: `http://127.0.0.1:${port}`, stop: () => app.close() }
    },
  ],
  [
    'Koa 3',
    async () => {
      const app = new Koa()
      app.use(koaContext(analytics, OPTIONS))
      app.use(async (ctx: { body: unknown }) => {
        ctx.body = await route()
      })
      const server = http.createServer(app.callback())
      return { url: await listen(server), stop: () => close(server) }
    },
  ],
  [
    'Hono 4 on @hono/node-server',
    async () => {
      const app = new Hono()
      app.use(honoContext(analytics, OPTIONS))
      app.get('/pricing', async (c) => c.text(await route()))
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
      })
      const { port } = server.address() as { port: number }
      return { url: `http://127.0.0.1:${port}`, stop: () => close(server as http.Server) }
    },
  ],
  [
    'a Next.js 16 route handler (NextRequest)',
    async () => {
      // app/pricing/route.ts, as Next.js calls it: a NextRequest in, a Response out.
      const GET = nextContext(analytics, OPTIONS, async (request: NextRequest) => {
        expect(request.nextUrl.pathname).toBe('/pricing')
        return new Response(await route())
      })
      const server = http.createServer((req, res) => {
        const headers = new Headers()
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value)
        const request = new NextRequest(`http://${req.headers.host}${req.url}`, { headers })
        void GET(request).then(async (response) => {
          res.writeHead(response.status, { 'set-cookie': response.headers.getSetCookie() })
          res.end(await response.text())
        })
      })
      return { url: await listen(server), stop: () => close(server) }
    },
  ],
]

describe.each(APPS)('%s', (name, start) => {
  let app: { url: string; stop: () => Promise<void> }
  beforeAll(async () => {
    app = await start()
  })
  afterAll(() => app?.stop())

  it("a message made in the route carries the request's ids, ip, user agent, locale, page and campaign", async () => {
    const before = collector.messages.length
    const answer = await get(`${app.url}${PATH}`, BROWSER_HEADERS)
    expect(answer).toMatchObject({ status: 200, body: 'true', cookies: [] })
    const [message] = collector.messages.slice(before)
    expect(message).toMatchObject({ type: 'track', event: 'Viewed Pricing', userId: 'user-42', anonymousId: 'anon-123' })
    const host = new URL(app.url).host
    expect(message.context).toMatchObject({
      // The connection is from 127.0.0.1, the one proxy it trusts: the client is the address the proxy saw.
      ip: '10.0.0.2',
      userAgent: BROWSER_HEADERS['user-agent'],
      locale: 'fr-CH',
      page: {
        path: '/pricing',
        referrer: 'https://shop.example.com/cart',
        search: '?utm_source=newsletter&utm_campaign=spring&utm_medium=email',
      },
      campaign: { source: 'newsletter', name: 'spring', medium: 'email' },
    })
    // NextRequest's nextUrl (which the request's url becomes) names 127.0.0.1 localhost.
    const pageHost = name.startsWith('a Next') ? host.replace('127.0.0.1', 'localhost') : host
    expect(message.context.page.url).toBe(`http://${pageHost}${PATH}`)
  })

  it('a first visit gets an anonymous id in the cookie analytics.js reads, and the next visit sends it back', async () => {
    const before = collector.messages.length
    const first = await get(`${app.url}${PATH}`, { 'user-agent': 'first-visit' })
    expect(first.status).toBe(200)
    expect(first.cookies).toHaveLength(1)
    const [cookie] = first.cookies
    expect(cookie).toMatch(
      /^ajs_anonymous_id=%22[0-9a-f-]{36}%22; Max-Age=31536000; Expires=[^;]+; Path=\/; Domain=127\.0\.0\.1; SameSite=Lax$/,
    )
    const id = anonymousIdOf(cookie)
    const again = await get(`${app.url}${PATH}`, { cookie: cookie.split(';')[0] })
    expect(again.cookies).toEqual([])
    const sent = collector.messages.slice(before)
    expect(sent.map((m) => m.anonymousId)).toEqual([id, id])
    expect(sent[0].userId).toBeUndefined()
  })
})
