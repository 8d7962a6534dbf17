// The cost of eventrail/context (issue 33), against the built dist/:
// 1. track() inside a request's context against the same call outside one, in CPU per call: each
//    case in its own child process (a fresh JIT), `enable: false` (the call's own cost, queue
//    included), alternated for `rounds` rounds, the median. Cases: `plain` (a client that never
//    met a context: userId on the call), `outside` (a client that did, called outside any
//    context), `inside` (inside withContext with ids, ip, user agent, locale and page: no ids on
//    the call), `inside-consent` (the same with consent in 'enforce' mode, the event consented).
//    Target: inside ≤ 1.3x plain.
// 2. An Express 5 request whose route makes one track(), with and without expressContext (which
//    reads the request: ip, user agent, locale, page, campaign, cookies), in latency per request:
//    sequential GETs over one keep-alive socket on 127.0.0.1, the two apps alternated in rounds,
//    the median of every request's latency. Target: ≤ 50 µs added at the median.
//   npm run bench:context [-- --quick]
// --quick: a few thousand calls and requests, to check that the script works; not for figures.

import { fork } from 'node:child_process'
import * as http from 'node:http'
import { fileURLToPath } from 'node:url'

const quick = process.argv.includes('--quick')
const CALLS = quick ? 20_000 : 300_000
const ROUNDS = quick ? 1 : 7
const REQUESTS = quick ? 1_000 : 10_000
// plain: the call with its own userId; outside: the same with the context slot installed;
// by-hand: the call that sends what a context adds (anonymousId, ip, user agent, locale, page),
// threaded by hand: the same message on the wire as inside, so inside / by-hand is the cost of the
// context itself (the target), and inside / plain also counts the bigger message it sends.
const CASES = ['plain', 'outside', 'by-hand', 'inside', 'inside-consent']
const HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  'accept-language': 'en-GB,en;q=0.8',
  referer: 'https://shop.example.com/cart',
  cookie: 'ajs_anonymous_id=%22anon-123%22; ajs_user_id=user-42',
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

if (process.argv[2] === '--child') {
  const kind = process.argv[3]
  const calls = Number(process.argv[4])
  const { Analytics } = await import('../dist/index.js')
  const { withContext, resolveConsent } = await import('../dist/context.js')
  const analytics = new Analytics('bench-key', { enable: false, flushAt: 1000, maxQueueSize: calls + 1, maxQueueBytes: 2 ** 31 - 1 })
  const properties = (i) => ({ orderId: `o-${i}`, total: i % 100, currency: 'USD' })
  const context = {
    ip: '203.0.113.7',
    userAgent: HEADERS['user-agent'],
    locale: 'en-GB',
    page: { url: 'https://shop.example.com/cart', path: '/cart', search: '', referrer: 'https://shop.example.com/' },
  }
  const consent = resolveConsent({ mode: 'enforce', defaults: { Analytics: true }, categories: { '*': ['Analytics'] } }, undefined, false)
  const run = (n, offset) => {
    if (kind === 'plain' || kind === 'outside') {
      for (let i = 0; i < n; i++) analytics.track({ userId: 'user-42', event: 'Order Completed', properties: properties(offset + i) })
    } else if (kind === 'by-hand') {
      for (let i = 0; i < n; i++)
        analytics.track({
          userId: 'user-42',
          anonymousId: 'anon-123',
          event: 'Order Completed',
          properties: properties(offset + i),
          context: { ...context },
        })
    } else {
      for (let i = 0; i < n; i++) analytics.track({ event: 'Order Completed', properties: properties(offset + i) })
    }
  }
  if (kind === 'outside') withContext(analytics, { userId: 'warm' }, () => undefined)
  const input = { userId: 'user-42', anonymousId: 'anon-123', context, ...(kind === 'inside-consent' ? { consent } : {}) }
  const measure = (n, offset) => (kind.startsWith('inside') ? withContext(analytics, input, () => run(n, offset)) : run(n, offset))
  measure(20_000, 0) // warm up
  await analytics.flush()
  const cpu0 = process.cpuUsage()
  measure(calls, 20_000)
  const cpu = process.cpuUsage(cpu0)
  await analytics.flush()
  process.send({ nsPerCall: ((cpu.user + cpu.system) * 1000) / calls })
} else {
  const perCall = Object.fromEntries(CASES.map((c) => [c, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of CASES) {
      const child = fork(fileURLToPath(import.meta.url), ['--child', kind, String(CALLS)], {
        env: { ...process.env, NODE_ENV: 'production' },
      })
      const { nsPerCall } = await new Promise((resolve, reject) => {
        child.once('message', resolve)
        child.once('error', reject)
      })
      child.kill()
      perCall[kind].push(nsPerCall)
    }
  }
  console.log(`### track() inside and outside a context${quick ? ' (--quick)' : ''}\n`)
  console.log(`| case | ns per track() (median of ${ROUNDS}) | vs plain | vs by-hand (same message) |`)
  console.log('| --- | ---: | ---: | ---: |')
  const ratio = (kind, to) => `${(median(perCall[kind]) / median(perCall[to])).toFixed(2)}x`
  for (const kind of CASES) console.log(`| ${kind} | ${median(perCall[kind]).toFixed(0)} | ${ratio(kind, 'plain')} | ${ratio(kind, 'by-hand')} |`)

  const latency = await expressLatency()
  console.log(`\n### An Express 5 request with one track(), with and without expressContext${quick ? ' (--quick)' : ''}\n`)
  console.log(`| app | median µs per request (${latency.count} requests) | p90 µs |`)
  console.log('| --- | ---: | ---: |')
  for (const [name, xs] of Object.entries(latency.apps))
    console.log(`| ${name} | ${median(xs).toFixed(1)} | ${percentile(xs, 0.9).toFixed(1)} |`)
  const added = median(latency.apps['with expressContext']) - median(latency.apps['without middleware'])
  console.log(`\nAdded at the median: ${added.toFixed(1)} µs (target ≤ 50 µs).`)
}

function percentile(xs, p) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]
}

async function expressLatency() {
  const { default: express } = await import('express')
  const { Analytics } = await import('../dist/index.js')
  const { expressContext, inContext } = await import('../dist/context.js')
  const analytics = new Analytics('bench-key', { enable: false, flushAt: 1000, maxQueueSize: 10 ** 7, maxQueueBytes: 2 ** 31 - 1 })
  const plain = express()
  plain.get('/p', (req, res) => {
    analytics.track({ userId: 'user-42', event: 'Viewed', context: { ip: req.socket.remoteAddress } })
    res.end('ok')
  })
  const withContext = express()
  withContext.use(expressContext(analytics, { trustProxy: 1 }))
  withContext.get('/p', (req, res) => {
    inContext(analytics).track({ event: 'Viewed' })
    res.end('ok')
  })
  const apps = { 'without middleware': plain, 'with expressContext': withContext }
  const servers = {}
  for (const [name, app] of Object.entries(apps)) {
    const server = http.createServer(app)
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers[name] = server
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = (port) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint()
      http
        .get({ host: '127.0.0.1', port, path: '/p?utm_source=bench', agent, headers: HEADERS }, (res) => {
          res.resume()
          res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1000))
        })
        .on('error', reject)
    })
  const results = Object.fromEntries(Object.keys(apps).map((name) => [name, []]))
  const rounds = quick ? 2 : 10
  const perRound = Math.ceil(REQUESTS / rounds)
  for (let round = 0; round < rounds; round++) {
    for (const [name, server] of Object.entries(servers)) {
      const { port } = server.address()
      for (let i = 0; i < 200; i++) await get(port) // warm up this app and its socket
      for (let i = 0; i < perRound; i++) results[name].push(await get(port))
    }
  }
  agent.destroy()
  for (const server of Object.values(servers)) await new Promise((resolve) => server.close(resolve))
  await analytics.closeAndFlush()
  return { apps: results, count: perRound * rounds }
}
