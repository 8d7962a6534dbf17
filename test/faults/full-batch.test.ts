import { Analytics } from '../../src'
import { startFaultServer, until, type FaultServer } from './fault-server'
import { trackMessage } from './outcomes'

// A batch that is full (its messages fill a 500 KB request) goes out whatever flushAt says:
// waiting cannot make its request bigger, and a producer with a large flushAt would otherwise
// send everything at its end.

let server: FaultServer
afterEach(async () => server.close())

it('with flushAt 100,000, full batches are sent while the producer is still queueing', async () => {
  server = await startFaultServer()
  const analytics = new Analytics('k', { host: server.url, flushAt: 100_000, flushInterval: 0, errorHandler: () => undefined })
  const padding = 'p'.repeat(900)
  // ~1 KB each: 2,000 messages fill about four requests.
  for (let i = 0; i < 2_000; i++) analytics.track(trackMessage(`m${i}`, { padding }))
  // Sent before any flush(): the full batches. The last, partial one waits for a flush rule.
  await until(() => server.accepted.size >= 1 + 3 * 400, 10_000, 'the full batches')
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(server.requests.every((r) => r.raw.length <= 500 * 1024)).toBe(true)
  // The first message went alone (the first message flushes at once); the others, full.
  expect(server.requests[0].messages).toHaveLength(1)
  expect(server.requests.slice(1).every((r) => r.raw.length > 400 * 1024)).toBe(true)
  expect(analytics.stats().queued).toBeGreaterThan(0)
  await analytics.flush()
  expect(server.accepted.size).toBe(2_000)
  await analytics.closeAndFlush()
})
