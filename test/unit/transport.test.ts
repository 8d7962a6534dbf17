import { startTestServer, type TestServer } from '../helpers/test-server'
import type { FetchLike } from '../../src/core/types'

type TransportModule = typeof import('../../src/platform/transport')

// A fresh module each test: the default fetch is loaded once per module and then kept.
function freshTransport(): TransportModule {
  let module: TransportModule | undefined
  jest.isolateModules(() => {
    module = jest.requireActual<TransportModule>('../../src/platform/transport')
  })
  return module as TransportModule
}

function withoutGlobal(names: string[]): () => void {
  const g = globalThis as Record<string, unknown>
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(g, name)] as const)
  for (const name of names) delete g[name]
  return () => {
    for (const [name, descriptor] of saved) if (descriptor) Object.defineProperty(g, name, descriptor)
  }
}

const BODY = JSON.stringify({ batch: [{ type: 'track', event: 'Sent' }] })
let server: TestServer
beforeEach(async () => {
  server = await startTestServer()
})
afterEach(async () => {
  jest.resetModules()
  jest.restoreAllMocks()
  await server.close()
})

describe('the HTTP transport', () => {
  it("calls the user's fetch as a plain function, never as a method of the options (workerd: Illegal invocation)", async () => {
    const receivers: unknown[] = []
    const fetch: FetchLike = function (this: unknown, url, init) {
      receivers.push(this)
      return globalThis.fetch(url, init)
    }
    const transport = freshTransport().createHttpTransport({ writeKey: 'KEY', host: server.url, fetch, compress: false })
    const response = await transport.send('/v1/batch', BODY, new AbortController().signal)
    expect(response.status).toBe(200)
    expect(receivers).toEqual([undefined])
    expect(server.messages).toEqual([{ type: 'track', event: 'Sent' }])
  })

  it('sends Basic auth and the runtime in the User-Agent, also without Buffer and process.version', async () => {
    const restore = withoutGlobal(['Buffer'])
    let transport
    try {
      transport = freshTransport().createHttpTransport({ writeKey: 'kéy', host: server.url, fetch: globalThis.fetch, compress: false })
    } finally {
      restore()
    }
    await transport.send('/v1/batch', BODY, new AbortController().signal)
    const [request] = server.requests
    expect(request.headers.authorization).toBe('Basic ' + Buffer.from('kéy:').toString('base64'))
    expect(request.headers['user-agent']).toMatch(new RegExp(`^eventrail/\\d+\\.\\d+\\.\\d+.* \\(node ${process.version}\\)$`))
  })

  it('with compress where the runtime has no gzip (Vercel Edge), sends the body uncompressed and without Content-Encoding', async () => {
    const restore = withoutGlobal(['CompressionStream', 'process'])
    let transport
    try {
      transport = freshTransport().createHttpTransport({ writeKey: 'KEY', host: server.url, fetch: globalThis.fetch, compress: true })
    } finally {
      restore()
    }
    await transport.send('/v1/batch', BODY, new AbortController().signal)
    expect(server.requests[0].headers['content-encoding']).toBeUndefined()
    expect(server.requests[0].bytes).toBe(BODY.length)
    expect(server.messages).toEqual([{ type: 'track', event: 'Sent' }])
  })

  it('with compress, gzips with CompressionStream where there is no node:zlib (Workers)', async () => {
    const restore = withoutGlobal(['process'])
    let transport, sent
    try {
      transport = freshTransport().createHttpTransport({ writeKey: 'KEY', host: server.url, fetch: globalThis.fetch, compress: true })
      sent = transport.send('/v1/batch', BODY, new AbortController().signal)
    } finally {
      restore()
    }
    await sent
    expect(server.requests[0].headers['content-encoding']).toBe('gzip')
    expect(server.messages).toEqual([{ type: 'track', event: 'Sent' }])
  })

  it("sends with the runtime's global fetch by default outside Node (here: a process that says it is Bun)", async () => {
    const g = globalThis as { Bun?: unknown }
    g.Bun = { version: '1.4.5' }
    const global = jest.spyOn(globalThis, 'fetch')
    try {
      const transport = freshTransport().createHttpTransport({ writeKey: 'KEY', host: server.url, fetch: undefined, compress: false })
      const response = await transport.send('/v1/batch', BODY, new AbortController().signal)
      expect(response.status).toBe(200)
    } finally {
      delete g.Bun
    }
    expect(global).toHaveBeenCalledTimes(1)
    expect(global.mock.contexts[0]).toBeUndefined()
    expect(server.messages).toEqual([{ type: 'track', event: 'Sent' }])
  })

  it('sends with node:http and its keep-alive agent by default in Node, never with the global fetch', async () => {
    const global = jest.spyOn(globalThis, 'fetch')
    const transport = freshTransport().createHttpTransport({ writeKey: 'KEY', host: server.url, fetch: undefined, compress: false })
    expect((await transport.send('/v1/batch', BODY, new AbortController().signal)).status).toBe(200)
    expect(global).not.toHaveBeenCalled()
    expect(server.requests[0].headers.connection).toBe('keep-alive')
    expect(server.requests[0].headers['content-length']).toBe(String(Buffer.byteLength(BODY)))
  })
})
