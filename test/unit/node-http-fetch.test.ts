// The default transport in Node, straight on node:http: against real servers on 127.0.0.1.
import * as http from 'node:http'
import * as https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { createNodeHttpFetch } from '../../src/platform/node-http-fetch'
import { drainResponseBody } from '../../src/platform/response-body'
import type { FetchLike } from '../../src/core/types'

interface Server {
  url: string
  sockets: Set<Socket>
  bodies: { headers: http.IncomingHttpHeaders; body: string }[]
  close(): Promise<void>
}

function startServer(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<Server> {
  const bodies: Server['bodies'] = []
  const sockets = new Set<Socket>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      bodies.push({ headers: req.headers, body })
      handle(req, res, body)
    })
  })
  server.on('connection', (socket) => sockets.add(socket))
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        sockets,
        bodies,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          }),
      }),
    ),
  )
}

const POOL = { maxSockets: 4, freeSocketTimeoutMs: 4_000 }
const loaded: string[] = []
const load = (id: 'node:http' | 'node:https') => {
  loaded.push(id)
  return Promise.resolve(id === 'node:http' ? http : https)
}
let server: Server | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function post(fetch: FetchLike, url: string, body: string | Uint8Array<ArrayBuffer>, signal = new AbortController().signal) {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal })
}

describe('createNodeHttpFetch', () => {
  it('POSTs the body with its length and headers, answers the status and a header, and reuses the socket', async () => {
    server = await startServer((_req, res) => res.writeHead(429, { 'Retry-After': '7' }).end('{"success":false}'))
    const fetch = createNodeHttpFetch(load, POOL)
    const text = '{"é":1}'
    for (const body of [text, new TextEncoder().encode(text)]) {
      const response = await post(fetch, `${server.url}/v1/batch`, body)
      expect(response.status).toBe(429)
      expect(response.headers.get('Retry-After')).toBe('7')
      expect(response.headers.get('x-missing')).toBeNull()
      expect(new TextDecoder().decode((await response.arrayBuffer()) as ArrayBuffer)).toBe('{"success":false}')
    }
    expect(server.bodies.map((b) => [b.body, b.headers['content-length'], b.headers['content-type'], b.headers.connection])).toEqual([
      [text, '8', 'application/json', 'keep-alive'],
      [text, '8', 'application/json', 'keep-alive'],
    ])
    expect(server.sockets.size).toBe(1)
  })

  it('loads node:http alone for an http: host, on the first request, once', async () => {
    server = await startServer((_req, res) => res.end())
    loaded.length = 0
    const fetch = createNodeHttpFetch(load, POOL)
    expect(loaded).toEqual([])
    await post(fetch, server.url, '{}')
    await post(fetch, server.url, '{}')
    expect(loaded).toEqual(['node:http'])
  })

  it('rejects, naming the module, where the runtime has no node:https', async () => {
    const fetch = createNodeHttpFetch(() => Promise.resolve(undefined), POOL)
    await expect(post(fetch, 'https://127.0.0.1:1/v1/batch', '{}')).rejects.toThrow('this runtime has no node:https')
  })

  it('gives the body as a stream that the client drains, after which the socket is reused', async () => {
    server = await startServer((_req, res) => res.end('x'.repeat(10_000)))
    const fetch = createNodeHttpFetch(load, POOL)
    for (let i = 0; i < 3; i++) {
      const response = await post(fetch, server.url, '{}')
      await drainResponseBody(response, 1_000, () => undefined)
    }
    expect(server.sockets.size).toBe(1)
  })

  it('rejects with the network error when nothing listens', async () => {
    const closed = await startServer(() => undefined)
    const url = closed.url
    await closed.close()
    await expect(post(createNodeHttpFetch(load, POOL), url, '{}')).rejects.toThrow(/ECONNREFUSED/)
  })

  it('rejects with the reason when aborted before or while waiting for the answer, and closes the request', async () => {
    server = await startServer(() => undefined) // never answers
    const fetch = createNodeHttpFetch(load, POOL)
    const early = new AbortController()
    early.abort(new Error('stopped before'))
    await expect(post(fetch, server.url, '{}', early.signal)).rejects.toThrow('stopped before')
    const late = new AbortController()
    const pending = post(fetch, server.url, '{}', late.signal)
    await new Promise((resolve) => setTimeout(resolve, 20))
    late.abort(new Error('timed out after 20 ms'))
    await expect(pending).rejects.toThrow('timed out after 20 ms')
  })

  it('an abort while the body is read ends the response without an unhandled error', async () => {
    server = await startServer((_req, res) => res.writeHead(200).write('partial')) // the body never ends
    const controller = new AbortController()
    const response = (await post(createNodeHttpFetch(load, POOL), server.url, '{}', controller.signal)) as unknown as {
      body: http.IncomingMessage
    }
    const closed = new Promise((resolve) => response.body.on('close', resolve))
    controller.abort(new Error('response body too long or too slow'))
    await closed
    expect(response.body.destroyed).toBe(true)
  })

  it('refuses a URL that is not http: or https:', async () => {
    await expect(post(createNodeHttpFetch(load, POOL), 'ftp://127.0.0.1/v1/batch', '{}')).rejects.toThrow(
      'cannot send to ftp: URLs, only http: and https:',
    )
  })
})
