import * as http from 'node:http'
import { gunzipSync } from 'node:zlib'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'

/** What the fault server does with one request. */
export type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  /** Destroys the socket before the request body has been read: the client sees a reset. */
  | { kind: 'reset' }
  /** Reads the body, then never answers: the client must time out. */
  | { kind: 'hang' }
  /** Reads the body and answers `status` after `ms`. */
  | { kind: 'delay'; ms: number; status?: number }
  /** Reads the body and answers `status` once `open` resolves. */
  | { kind: 'gate'; open: Promise<unknown>; status?: number }

/** One request the server read to the end (a reset request is counted but never read). */
export interface SeenRequest {
  /** Order of arrival, from 0, over every request (resets included). */
  readonly index: number
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  /** The raw bytes as they came over the wire (compressed when gzip). */
  readonly raw: Buffer
  /** The decoded body text (gunzipped when gzip). */
  readonly text: string
  /** The parsed body, or undefined when it was not JSON. */
  readonly body: any
  /** The messages it carried: batch items, or the body itself for a single-message path. */
  readonly messages: any[]
  /** The answer given, or undefined while none was (hang, reset). */
  status: number | undefined
}

/**
 * A node:http server on 127.0.0.1 (port 0) whose every answer is chosen by `decide`, with the
 * number of the request: answer a status (with headers such as Retry-After), reset, hang or
 * delay. It records every request and which messages were accepted (a 2xx answer was written).
 */
export interface FaultServer {
  readonly url: string
  readonly port: number
  readonly requests: SeenRequest[]
  /** Requests that arrived, resets included. */
  readonly arrivals: number
  /** Requests being handled right now (arrived, not yet answered or closed). */
  readonly concurrent: number
  /** The most requests handled at once so far. */
  readonly maxConcurrent: number
  /** messageId → how many times it arrived in a request answered 2xx. */
  readonly accepted: Map<string, number>
  /** Every message of the requests answered 2xx, in arrival order (duplicates included). */
  readonly acceptedMessages: any[]
  /** The answer to request number `index` (from 0) to `path`, with its headers. */
  decide: (index: number, path: string, headers: http.IncomingHttpHeaders) => Fault
  /** Stops listening and drops every connection (hung ones too). */
  close(): Promise<void>
  /** Listens again on the same port after `close()`. */
  reopen(): Promise<void>
}

export async function startFaultServer(decide: FaultServer['decide'] = () => ({ kind: 'status', status: 200 })): Promise<FaultServer> {
  const requests: SeenRequest[] = []
  const accepted = new Map<string, number>()
  const acceptedMessages: any[] = []
  const sockets = new Set<Socket>()
  const state = { decide, arrivals: 0, concurrent: 0, maxConcurrent: 0 }

  const server = http.createServer((req, res) => {
    const index = state.arrivals++
    const fault = state.decide(index, req.url ?? '', req.headers)
    state.concurrent += 1
    state.maxConcurrent = Math.max(state.maxConcurrent, state.concurrent)
    let open = true
    const done = (): void => {
      if (open) {
        open = false
        state.concurrent -= 1
      }
    }
    res.on('close', done)
    if (fault.kind === 'reset') {
      req.socket.destroy()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let decoded = raw
      if (req.headers['content-encoding'] === 'gzip') {
        try {
          decoded = gunzipSync(raw)
        } catch {
          decoded = Buffer.alloc(0)
        }
      }
      const text = decoded.toString('utf8')
      let body: any
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      const path = req.url ?? ''
      const messages = body === undefined ? [] : path === '/v1/batch' ? (Array.isArray(body.batch) ? body.batch : []) : [body]
      const seen: SeenRequest = { index, path, headers: req.headers, raw, text, body, messages, status: undefined }
      requests.push(seen)
      const answer = (status: number, headers: Record<string, string> = {}): void => {
        if (res.destroyed) return
        seen.status = status
        if (status >= 200 && status < 300) {
          for (const message of messages) {
            acceptedMessages.push(message)
            const id = message?.messageId
            if (typeof id === 'string') accepted.set(id, (accepted.get(id) ?? 0) + 1)
          }
        }
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end('{}')
      }
      if (fault.kind === 'status') answer(fault.status, fault.headers)
      else if (fault.kind === 'delay') setTimeout(() => answer(fault.status ?? 200), fault.ms)
      else if (fault.kind === 'gate') void fault.open.then(() => answer(fault.status ?? 200))
      // 'hang': no answer; close() destroys the socket.
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('clientError', (_err, socket) => socket.destroy())

  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  await listen(0)
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    accepted,
    acceptedMessages,
    get arrivals() {
      return state.arrivals
    },
    get concurrent() {
      return state.concurrent
    },
    get maxConcurrent() {
      return state.maxConcurrent
    },
    get decide() {
      return state.decide
    },
    set decide(fn) {
      state.decide = fn
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) {
          for (const socket of sockets) socket.destroy()
          resolve()
          return
        }
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
    // The port may for a moment be an outgoing connection's ephemeral port: try again a few times.
    reopen: async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await listen(port)
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 40) throw err
          await sleep(50)
        }
      }
    },
  }
}

/** Resolves after `ms` (for letting background work happen; never used to assert elapsed time). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Resolves when `predicate` holds, polling; rejects after `limitMs` so that a test stops by itself. */
export async function until(predicate: () => boolean, limitMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}
