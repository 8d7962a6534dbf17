// Acceptance audit of the local collector against spec/wire-interface.md and issue 3: black-box,
// through createCollector, over real HTTP on 127.0.0.1.
import * as net from 'node:net'
import { createCollector, type Collector } from '../../src/collector'

let collector: Collector | undefined

afterEach(async () => {
  await collector?.close()
  collector = undefined
})

const AUTH = 'Basic ' + Buffer.from('key:').toString('base64')

async function postBatch(url: string, body: string): Promise<number> {
  const response = await fetch(url + '/v1/batch', {
    method: 'POST',
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    body,
  })
  await response.arrayBuffer()
  return response.status
}

describe('bounded memory (issue 3: every message kept in memory, bounded)', () => {
  it('cuts the live feed of a debugger page that stopped reading instead of buffering every record for it', async () => {
    collector = await createCollector({ maxMessages: 10, maxRequests: 10 })
    const { port } = collector
    // A debugger page whose tab froze: it opened the event stream and reads nothing more.
    const socket = net.connect(port, '127.0.0.1')
    socket.on('error', () => undefined)
    socket.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n')
    socket.pause()
    let closed = false
    socket.on('close', () => (closed = true))

    // 80 requests of 24 messages of ~20 KB: ~38 MB of records the feed would have to carry.
    const item = JSON.stringify({
      type: 'track',
      userId: 'u1',
      event: 'Big',
      properties: { s: 'x'.repeat(20_000) },
    })
    const body = '{"batch":[' + Array(24).fill(item).join(',') + ']}'
    const feedBytes = 80 * 24 * item.length
    for (let i = 0; i < 80; i++) expect(await postBatch(collector.url, body)).toBe(200)

    // Now read what the collector kept for the page: the stream must have been cut long before
    // it carried everything (the page's EventSource reconnects and starts from the backlog).
    const received = await new Promise<number>((resolve) => {
      let bytes = 0
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes >= feedBytes) resolve(bytes)
      })
      socket.on('close', () => resolve(bytes))
      socket.resume()
    })
    socket.destroy()
    expect(received).toBeLessThan(feedBytes / 2)
    expect(closed).toBe(true)
  })
})
