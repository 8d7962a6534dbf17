// The first event, by hand: one enriched event, stringified once, POSTed to /v1/batch over a
// keep-alive node:http agent; the process ends when the answer has come.
import { Agent, request } from 'node:http'
import { randomUUID } from 'node:crypto'

const url = new URL('/v1/batch', process.argv[2])
const event = {
  type: 'track',
  userId: 'user-1',
  event: 'Order Completed',
  properties: { total: 42 },
  messageId: randomUUID(),
  timestamp: new Date().toISOString(),
  context: { library: { name: 'baseline', version: '1.0.0' } },
}
const body = JSON.stringify({ batch: [event], sentAt: new Date().toISOString() })
const agent = new Agent({ keepAlive: true, maxSockets: 8 })
const headers = {
  'Content-Type': 'application/json',
  'Content-Length': Buffer.byteLength(body),
  Authorization: 'Basic ' + Buffer.from('key:').toString('base64'),
}
const req = request(url, { method: 'POST', agent, headers }, (res) => {
  res.resume()
  res.on('end', () => agent.destroy())
})
req.end(body)
