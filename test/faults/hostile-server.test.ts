// Issue 11, item 12: a server whose answer is huge or never ends cannot grow the host's memory
// or hold its sockets. Real HTTP servers on 127.0.0.1, with the default transport (node:http)
// and with the global fetch (a WHATWG ReadableStream body).
import * as http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Analytics, type FetchLike } from '../../src'
import { MAX_RESPONSE_BODY_BYTES } from '../../src/platform/response-body'

interface BodyServer {
  readonly url: string
  /** Requests whose headers were answered. */
  readonly answered: number
  /** The distinct events of the messages in the requests answered. */
  readonly answeredEvents: Set<string>
  /** Bytes of response body each connection managed to write before it closed. */
  readonly writtenOnClose: number[]
  /** Resolves when `count` connections have closed. */
  closed(count: number): Promise<void>
  close(): Promise<void>
}

/** Answers 200 to every request, then writes `body` to the response until the client closes the connection. */
async function startBodyServer(body: 'huge' | 'trickle'): Promise<BodyServer> {
  let answered = 0
  const answeredEvents = new Set<string>()
  const writtenOnClose: number[] = []
  const waiters: (() => void)[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const server = http.createServer((req, res) => {
    const received: Buffer[] = []
    req.on('data', (chunk: Buffer) => received.push(chunk))
    req.on('end', () => {
      answered += 1
      const sent = JSON.parse(Buffer.concat(received).toString('utf8')) as { batch?: { event?: string }[]; event?: string }
      for (const message of sent.batch ?? [sent]) if (message.event) answeredEvents.add(message.event)
      res.writeHead(200, { 'content-type': 'application/json' })
      let written = 0
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      let timer: NodeJS.Timeout | undefined
      res.socket?.once('close', () => {
        if (timer) clearInterval(timer)
        writtenOnClose.push(written)
        for (const wake of waiters.splice(0)) wake()
      })
      if (body === 'huge') {
        // 256 MB, written only as fast as the client takes it.
        const pump = (): void => {
          while (written < 256 * 1024 * 1024 && !res.destroyed) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        pump()
      } else {
        res.write('{')
        timer = setInterval(() => {
          written += 1
          res.write(' ')
        }, 20)
        timers.add(timer)
      }
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get answered() {
      return answered
    },
    answeredEvents,
    writtenOnClose,
    async closed(count) {
      while (writtenOnClose.length < count) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

const FETCHES: [string, FetchLike | undefined][] = [
  ['the default transport (node:http)', undefined],
  ['the global fetch', globalThis.fetch],
]

let server: BodyServer
afterEach(async () => server.close())

describe.each(FETCHES)('with %s', (_name, fetch) => {
  it('delivers a message answered 200 with a 256 MB body, reading a bounded part of the body, then closing the connection', async () => {
    server = await startBodyServer('huge')
    const analytics = new Analytics('k', { host: server.url, flushAt: 1, fetch })
    const outcome = new Promise<Error | undefined>((resolve) => analytics.track({ userId: 'u', event: 'E' }, resolve))
    expect(await outcome).toBeUndefined()
    await server.closed(1)
    // The client stopped after 64 KB: what the server wrote beyond is what the socket buffers held.
    expect(server.writtenOnClose[0]).toBeLessThan(16 * 1024 * 1024)
    expect(MAX_RESPONSE_BODY_BYTES).toBe(64 * 1024)
    await analytics.closeAndFlush({ timeout: 1_000 })
  })

  it('delivers a message answered 200 with a body that never ends, and closes the connection after the request timeout', async () => {
    server = await startBodyServer('trickle')
    const analytics = new Analytics('k', { host: server.url, flushAt: 1, timeout: 300, fetch })
    const outcome = new Promise<Error | undefined>((resolve) => analytics.track({ userId: 'u', event: 'E' }, resolve))
    expect(await outcome).toBeUndefined()
    await server.closed(1)
    expect(server.answered).toBe(1)
    await analytics.closeAndFlush({ timeout: 1_000 })
  })
})

it('trickling answers do not exhaust the pool of 64 sockets: 80 requests in a row are all delivered', async () => {
  server = await startBodyServer('trickle')
  const analytics = new Analytics('k', { host: server.url, flushAt: 1, timeout: 300, maxInFlight: 8 })
  const outcomes = Array.from(
    { length: 80 },
    (_, i) => new Promise<Error | undefined>((resolve) => analytics.track({ userId: 'u', event: `E${i}` }, resolve)),
  )
  expect(await Promise.all(outcomes)).toEqual(Array.from({ length: 80 }, () => undefined))
  // Each of the 80 was answered. On a loaded machine an answer's headers can take longer than the
  // 300 ms timeout: that attempt is retried and answered again, so requests may number more than 80.
  expect(server.answeredEvents.size).toBe(80)
  expect(server.answered).toBeGreaterThanOrEqual(80)
  await server.closed(80)
  await analytics.closeAndFlush({ timeout: 1_000 })
}, 30_000)
