import * as http from 'node:http'
import { contextFromRequest, decodeAjsId, type RequestContext, type RequestContextOptions } from 'eventrail/context'
import { ValidationError } from 'eventrail'
import { close, get, listen } from './helpers'

// contextFromRequest on a real Node request (IncomingMessage, on 127.0.0.1) and on a Fetch Request.
async function fromNode(
  headers: Record<string, string>,
  options: RequestContextOptions<http.IncomingMessage> = {},
  path = '/',
): Promise<RequestContext> {
  let result: RequestContext | undefined
  const server = http.createServer((req, res) => {
    result = contextFromRequest(req, options)
    res.end()
  })
  const url = await listen(server)
  await get(`${url}${path}`, headers)
  await close(server)
  return result as RequestContext
}

describe('the IP address', () => {
  const xff = { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.2' }
  it("is the connection's own without trustProxy: X-Forwarded-For is never read blindly", async () => {
    expect((await fromNode(xff)).context.ip).toBe('127.0.0.1')
  })
  it.each([
    [0, '127.0.0.1'],
    [1, '10.0.0.2'],
    [2, '203.0.113.7'],
    [3, '198.51.100.1'],
    [9, '198.51.100.1'],
  ])('with trustProxy %i it is that many hops back', async (hops, ip) => {
    expect((await fromNode(xff, { trustProxy: hops })).context.ip).toBe(ip)
  })
  it('with a predicate, it is the first address from the connection back that is not trusted', async () => {
    const trusted = (address: string) => address === '127.0.0.1' || address.startsWith('10.')
    expect((await fromNode(xff, { trustProxy: trusted })).context.ip).toBe('203.0.113.7')
  })
  it('a Fetch request (no connection address) counts its host as the first proxy', () => {
    const request = new Request('https://example.com/', { headers: xff })
    expect(contextFromRequest(request).context.ip).toBeUndefined()
    expect(contextFromRequest(request, { trustProxy: 1 }).context.ip).toBe('10.0.0.2')
    expect(contextFromRequest(request, { remoteAddress: '192.0.2.9' }).context.ip).toBe('192.0.2.9')
  })
  it('an invalid trustProxy is refused, naming it', () => {
    expect(() => contextFromRequest(new Request('https://example.com/'), { trustProxy: -1 as never })).toThrow(ValidationError)
    expect(() => contextFromRequest(new Request('https://example.com/'), { trustProxy: 'yes' as never })).toThrow(/"trustProxy"/)
  })
})

describe("analytics.js's cookies", () => {
  it.each([
    ['JSON-quoted and URI-encoded (analytics.js classic)', '%22abc-1%22', 'abc-1'],
    ['plain (analytics-next)', 'abc-1', 'abc-1'],
    ['JSON-quoted, not encoded', '"abc-1"', 'abc-1'],
    ['URI-encoded', 'a%40b.com', 'a@b.com'],
    ['an email JSON-quoted and encoded', '%22a%40b.com%22', 'a@b.com'],
    ['JSON null', 'null', undefined],
    ['empty', '', undefined],
    ['broken JSON', '%22abc', undefined],
    ['a control character', '%22a%0Ab%22', undefined],
  ])('%s: %s', (_, raw, id) => {
    expect(decodeAjsId(raw)).toBe(id)
  })
  it('a cookie whose name only ends with the name is not it; spaces around the = are allowed', () => {
    const request = (cookie: string) => new Request('https://e.com/', { headers: { cookie } })
    expect(contextFromRequest(request('xajs_anonymous_id=wrong; ajs_anonymous_id=right')).anonymousId).toBe('right')
    expect(contextFromRequest(request('xajs_anonymous_id=wrong')).anonymousId).toBeUndefined()
    expect(contextFromRequest(request('a=ajs_anonymous_id; ajs_anonymous_id = spaced')).anonymousId).toBe('spaced')
  })
  it('over 1,000 characters is ignored', () => {
    expect(decodeAjsId('x'.repeat(1001))).toBeUndefined()
  })
  it('are read from a Node request and a Fetch request alike; the session userId wins over the cookie', async () => {
    const cookie = 'a=1; ajs_user_id=%22u-9%22; ajs_anonymous_id=anon-7'
    expect(await fromNode({ cookie })).toMatchObject({ userId: 'u-9', anonymousId: 'anon-7' })
    const request = new Request('https://example.com/', { headers: { cookie } })
    expect(contextFromRequest(request)).toMatchObject({ userId: 'u-9', anonymousId: 'anon-7' })
    expect(contextFromRequest(request, { userId: () => 'session-user' }).userId).toBe('session-user')
    expect(contextFromRequest(request, { cookies: false })).toEqual({ context: { page: expect.any(Object) } })
  })
})

describe('the page, campaign and locale', () => {
  it('reads the URL, referrer, utm_* parameters and the preferred language', () => {
    const request = new Request('https://shop.example.com/p?utm_source=ads&utm_term=shoes&utm_content=banner&x=1', {
      headers: { referer: 'https://search.example/', 'accept-language': 'de;q=0.5, en-GB;q=0.8, *' },
    })
    expect(contextFromRequest(request).context).toEqual({
      locale: 'en-GB',
      page: {
        url: 'https://shop.example.com/p?utm_source=ads&utm_term=shoes&utm_content=banner&x=1',
        path: '/p',
        search: '?utm_source=ads&utm_term=shoes&utm_content=banner&x=1',
        referrer: 'https://search.example/',
      },
      campaign: { source: 'ads', term: 'shoes', content: 'banner' },
    })
  })
  it('a Node request behind a trusted proxy takes its scheme and host from X-Forwarded-Proto and -Host; an untrusted one does not', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'www.example.com', host: 'internal:8080' }
    expect((await fromNode(headers, { trustProxy: 1 }, '/a?b=1')).context.page).toEqual({
      url: 'https://www.example.com/a?b=1',
      path: '/a',
      search: '?b=1',
    })
    expect((await fromNode(headers, {}, '/a')).context.page).toMatchObject({ url: 'http://internal:8080/a' })
  })
  it('page: false leaves the page and campaign out', () => {
    expect(contextFromRequest(new Request('https://e.com/?utm_source=x'), { page: false }).context).toEqual({})
  })
})
