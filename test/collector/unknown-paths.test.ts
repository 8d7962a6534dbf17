import * as http from 'node:http'
import { Analytics } from '../../src'
import { createCollector, type Collector } from '../../src/collector'
import { runDev } from '../../src/collector/dev'
import { post } from './helpers'

// Issue 25, item 3: a client pointed at a wrong path got a bare 404, and the collector showed
// nothing. Requests to unknown paths are now answered with the fix, printed and shown on the page.
let collector: Collector | undefined
afterEach(() => collector?.close())

/** Reads the debugger's live feed until `until` matches what arrived, then closes it. */
function readFeed(url: string, until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url + '/events', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        if (until.test(text)) {
          req.destroy()
          resolve(text)
        }
      })
    })
    req.on('error', reject)
  })
}

describe('requests to unknown paths', () => {
  it('/v1/v1/batch (a host ending in /v1, in another SDK) is answered 404 with the host to set', async () => {
    collector = await createCollector()
    const response = await post(collector.url, '/v1/v1/batch', { batch: [] })
    const host = collector.url.slice('http://'.length)
    const error = `no endpoint /v1/v1/batch: the client's host ends in "/v1" and the client adds /v1/batch itself; set the client's host to "http://${host}"`
    expect(response).toEqual({ status: 404, body: { success: false, error } })
    expect(collector.requests.map((r) => [r.method, r.path, r.status, r.error])).toEqual([['POST', '/v1/v1/batch', 404, error]])
  })

  it('a client whose host has a path outside /v1 is answered and recorded too, and its flush fails', async () => {
    collector = await createCollector()
    const analytics = new Analytics('k', { host: collector.url + '/api', maxRetries: 0 })
    analytics.track({ userId: 'u1', event: 'Lost' })
    await expect(analytics.flush()).rejects.toMatchObject({ name: 'DeliveryError', status: 404 })
    expect(collector.requests).toHaveLength(1)
    expect(collector.requests[0]).toMatchObject({ method: 'POST', path: '/api/v1/batch', status: 404 })
    expect(collector.requests[0].error).toMatch(
      /^no endpoint \/api\/v1\/batch: the client's host ends in "\/api" and the client adds \/v1\/batch itself/,
    )
  })

  it('a path that ends in no endpoint lists the endpoints; the page and its GETs are unchanged', async () => {
    collector = await createCollector()
    expect((await post(collector.url, '/v1/import', {})).body.error).toBe(
      'no endpoint /v1/import: the wire interface has /v1/identify, /v1/track, /v1/page, /v1/screen, /v1/group, /v1/alias, /v1/batch',
    )
    expect((await fetch(collector.url + '/nowhere')).status).toBe(404)
    expect((await fetch(collector.url + '/')).status).toBe(200)
    expect(collector.requests.map((r) => r.path)).toEqual(['/v1/import'])
  })

  it('eventrail dev prints a line for each, and the page gets it in its live feed', async () => {
    let printed = ''
    collector = await runDev({ port: 0 }, false, { write: (text) => (printed += text), color: false })
    await post(collector.url, '/v1/v1/batch', { batch: [] })
    const line = printed.trimEnd().split('\n').at(-1)
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3}  POST \/v1\/v1\/batch  404: no endpoint \/v1\/v1\/batch: the client's host ends in "\/v1"/)
    const feed = await readFeed(collector.url, /event: rejected\n/)
    const data = /event: rejected\ndata: (.*)\n/.exec(feed)?.[1] ?? ''
    expect(JSON.parse(data)).toMatchObject({ path: '/v1/v1/batch', status: 404 })
  })

  it('prints nothing for them when quiet', async () => {
    let printed = ''
    collector = await runDev({ port: 0 }, true, { write: (text) => (printed += text), color: false })
    await post(collector.url, '/v1/v1/batch', { batch: [] })
    expect(printed).not.toContain('/v1/v1/batch')
  })
})
