import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'
import { gunzipSync } from 'node:zlib'

/**
 * A node:http server on 127.0.0.1 (port 0) that reads every request to the end and answers the
 * status `judge` gives for the messages it carried (batch items, or the body of a single-message
 * path): a service that refuses one particular message, or one that is down half the time. It
 * records which messages were accepted (answered 2xx) and what every request carried.
 */
export interface JudgingServer {
  readonly url: string
  /** messageId → how many times it arrived in a request answered 2xx. */
  readonly accepted: Map<string, number>
  /** The messageIds of every request, in order of arrival, with the status answered. */
  readonly requests: Array<{ readonly ids: string[]; readonly status: number }>
  close(): Promise<void>
}

export async function startJudgingServer(judge: (messages: any[]) => number): Promise<JudgingServer> {
  const accepted = new Map<string, number>()
  const requests: Array<{ ids: string[]; status: number }> = []
  const sockets = new Set<Socket>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')
      let messages: any[]
      try {
        const body = JSON.parse(text)
        messages = Array.isArray(body?.batch) ? body.batch : [body]
      } catch {
        messages = []
      }
      const status = judge(messages)
      const ids = messages.map((m) => String(m?.messageId))
      requests.push({ ids, status })
      if (status >= 200 && status < 300) for (const id of ids) accepted.set(id, (accepted.get(id) ?? 0) + 1)
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(status < 300 ? '{"success":true}' : '{"error":"refused"}')
    })
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
