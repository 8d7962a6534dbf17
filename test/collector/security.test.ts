import * as http from 'node:http'
import { createCollector, type Collector } from '../../src/collector'
import { basic, post } from './helpers'

// A web page next to the collector: DNS rebinding (a forged Host), CSRF on Clear, framing, and
// write keys in what the debugger serves. Every request goes over real HTTP on 127.0.0.1.

let collector: Collector

beforeEach(async () => {
  collector = await createCollector({ port: 0, writeKeys: ['secret-write-key'] })
})
afterEach(() => collector.close())

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

function request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: collector.port, path, method, agent: false, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      // The live feed never ends: take what came within a moment, then close.
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', done)
      if (path === '/events') setTimeout(() => (res.destroy(), done()), 200)
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe("DNS rebinding: the page, the feed and the API answer only to the collector's own names", () => {
  it.each(['/', '/api/messages', '/events', '/debugger.js'])('refuses %s with 403 when Host names another site', async (path) => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Private' }, { writeKey: 'secret-write-key' })
    const answer = await request('GET', path, { host: `rebound.example:${collector.port}` })
    expect(answer.status).toBe(403)
    expect(answer.body).toMatch(/^Forbidden: the Host header does not name this collector/)
    expect(answer.body).not.toContain('Private')
  })

  it.each(['127.0.0.1', 'localhost', '[::1]'])('serves the API to Host %s with the port', async (name) => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Mine' }, { writeKey: 'secret-write-key' })
    const answer = await request('GET', '/api/messages', { host: `${name}:${collector.port}` })
    expect(answer.status).toBe(200)
    expect(answer.body).toContain('Mine')
  })

  it('refuses a loopback name with another port (a page served from another local port)', async () => {
    expect((await request('GET', '/api/messages', { host: `localhost:${collector.port + 1}` })).status).toBe(403)
  })

  it('still takes the wire interface from any Host (clients name the collector as they like)', async () => {
    const body = JSON.stringify({ userId: 'u1', event: 'E' })
    const headers = { host: 'anything.example', authorization: basic('secret-write-key'), 'content-type': 'application/json' }
    const answer = await request('POST', '/v1/track', headers, body)
    expect(answer.status).toBe(200)
    expect(collector.messages).toHaveLength(1)
  })
})

describe('write keys are never kept', () => {
  it('serves no Authorization header over the API: a few characters of the key, masked', async () => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'E' }, { writeKey: 'secret-write-key' })
    const answer = await request('GET', '/api/messages', { host: `127.0.0.1:${collector.port}` })
    expect(answer.body).not.toContain(basic('secret-write-key').slice(6))
    const { requests } = JSON.parse(answer.body) as { requests: { headers: Record<string, string> }[] }
    expect(requests[0].headers.authorization).toBe('Basic secr… (write key masked)')
  })
})

describe('CSRF and framing', () => {
  it('refuses POST /api/clear from another origin and keeps the records', async () => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'E' }, { writeKey: 'secret-write-key' })
    const host = `127.0.0.1:${collector.port}`
    const crossSite = await request('POST', '/api/clear', { host, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    const noFetchMetadata = await request('POST', '/api/clear', { host, origin: 'http://evil.example' })
    expect(noFetchMetadata.status).toBe(403)
    expect(collector.messages).toHaveLength(1)
  })

  it('lets the debugger page itself clear', async () => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'E' }, { writeKey: 'secret-write-key' })
    const host = `127.0.0.1:${collector.port}`
    const answer = await request('POST', '/api/clear', { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })
    expect(answer.status).toBe(204)
    expect(collector.messages).toHaveLength(0)
  })

  it('sends the page with no framing allowed and a strict Content-Security-Policy', async () => {
    const answer = await request('GET', '/', { host: `127.0.0.1:${collector.port}` })
    expect(answer.status).toBe(200)
    expect(answer.headers['x-frame-options']).toBe('DENY')
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'")
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
  })
})
