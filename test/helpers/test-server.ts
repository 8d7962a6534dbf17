import * as http from 'node:http'
import { gunzipSync } from 'node:zlib'
import type { AddressInfo } from 'node:net'

/** One request the test server received. */
export interface ReceivedRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  bytes: number
  body: any
}

/** What the server answers: a status, or a status and extra response headers (e.g. `Retry-After`). */
export type Answer = number | readonly [status: number, headers?: Record<string, string>]

/** A real HTTP server on 127.0.0.1 that records what arrives and answers with `respond`'s status. */
export interface TestServer {
  url: string
  requests: ReceivedRequest[]
  /** Every message received: batch items and single-message bodies. */
  readonly messages: any[]
  respond: (request: ReceivedRequest, index: number) => Answer
  close(): Promise<void>
}

export async function startTestServer(respond: TestServer['respond'] = () => 200): Promise<TestServer> {
  const requests: ReceivedRequest[] = []
  const state = { respond }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      let raw = Buffer.concat(chunks)
      const bytes = raw.length
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
      let body: any
      try {
        body = JSON.parse(raw.toString('utf8'))
      } catch {
        body = undefined
      }
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, bytes, body }
      requests.push(request)
      const answer = state.respond(request, requests.length - 1)
      const [status, headers] = typeof answer === 'number' ? [answer, undefined] : answer
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get messages() {
      return requests.flatMap((r) => (r.path === '/v1/batch' ? (r.body?.batch ?? []) : [r.body]))
    },
    get respond() {
      return state.respond
    },
    set respond(fn) {
      state.respond = fn
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * For a test file: a fresh test server before each test (handed to `onServer`), closed after it,
 * and no unhandled rejection allowed during the test.
 */
export function serveEachTest(onServer: (server: TestServer) => void): void {
  let server: TestServer | undefined
  let unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason)
  }
  beforeAll(() => process.on('unhandledRejection', onUnhandled))
  afterAll(() => process.off('unhandledRejection', onUnhandled))
  beforeEach(async () => {
    unhandled = []
    server = await startTestServer()
    onServer(server)
  })
  afterEach(async () => {
    await server?.close()
    expect(unhandled).toEqual([])
  })
}
