import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as it arrived at the acceptance server. */
export interface Arrived {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: any
}

/** What to answer: a status and extra headers. */
export type Answer = readonly [status: number, headers?: Record<string, string>]

/** A plain `node:http` server on 127.0.0.1, port 0, that records what arrives and answers with `answer`. */
export interface AcceptanceServer {
  readonly url: string
  readonly requests: Arrived[]
  /** Every message received: batch items and single-message bodies, in arrival order. */
  readonly messages: any[]
  answer: (request: Arrived, index: number) => Answer
  close(): Promise<void>
}

export async function startServer(answer: AcceptanceServer['answer'] = () => [200]): Promise<AcceptanceServer> {
  const requests: Arrived[] = []
  const state = { answer }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        body = undefined
      }
      const arrived: Arrived = {
        path: req.url ?? '',
        headers: req.headers,
        body,
      }
      requests.push(arrived)
      const [status, headers] = state.answer(arrived, requests.length - 1)
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
    get answer() {
      return state.answer
    },
    set answer(fn) {
      state.answer = fn
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
