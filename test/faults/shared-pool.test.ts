import { Analytics } from '../../src'
import { startFaultServer, type FaultServer } from './fault-server'
import { trackMessage } from './outcomes'

// Instances of one process share the default transport's keep-alive pool (64 sockets per
// origin). An attempt takes a socket before its timeout starts: no timeout runs while it waits
// for one, nothing is sent twice, and one instance's burst does not starve another.

let server: FaultServer
let clients: Analytics[] = []

afterEach(async () => {
  await Promise.all(clients.map((a) => a.closeAndFlush({ timeout: 100 }).catch(() => undefined)))
  clients = []
  await server.close()
})

// 256 requests through 64 sockets: four rounds of 600 ms, 2.4 s for the last, longer than the
// timeout. The wait for a socket does not count against it; 1.4 s of margin for a loaded machine.
it('8 instances × 32 aliases (a request each) against a 600 ms service with timeout 2000: no retry, every message once', async () => {
  server = await startFaultServer(() => ({ kind: 'delay', ms: 600 }))
  clients = Array.from(
    { length: 8 },
    (_, k) => new Analytics(`key-${k}`, { host: server.url, flushAt: 1, timeout: 2000, errorHandler: () => undefined }),
  )
  clients.forEach((a, k) => {
    for (let i = 0; i < 32; i++) a.alias({ previousId: `p${i}`, userId: `u${i}`, messageId: `c${k}-${i}` })
  })
  await Promise.all(clients.map((a) => a.flush()))
  expect(clients.map((a) => a.stats()).reduce((sum, s) => sum + s.retried + s.failed, 0)).toBe(0)
  expect(server.accepted.size).toBe(256)
  expect([...server.accepted.values()].every((n) => n === 1)).toBe(true)
  expect(server.maxConcurrent).toBeLessThanOrEqual(64)
}, 30_000)

it("shares the sockets fairly: a single message of one instance does not wait behind other instances' bursts", async () => {
  server = await startFaultServer(() => ({ kind: 'delay', ms: 100 }))
  // Four busy instances, each up to 32 attempts at once: 128 for the pool's 64 sockets.
  const busy = Array.from(
    { length: 4 },
    (_, k) => new Analytics(`busy-${k}`, { host: server.url, flushAt: 1, errorHandler: () => undefined }),
  )
  const quiet = new Analytics('quiet', { host: server.url, flushAt: 1, errorHandler: () => undefined })
  clients = [...busy, quiet]
  busy.forEach((a, k) => {
    for (let i = 0; i < 100; i++) a.alias({ previousId: `p${i}`, userId: `u${i}`, messageId: `busy${k}-${i}` })
  })
  await new Promise((resolve) => setTimeout(resolve, 20))
  quiet.track(trackMessage('quiet'))
  await Promise.all(clients.map((a) => a.flush()))
  const order = server.requests.map((r) => r.messages[0]?.messageId as string)
  // Round-robin between instances: the quiet one's request takes one of the next free sockets,
  // not the place behind the 64 attempts already waiting (first come, first served would).
  expect(order.indexOf('quiet')).toBeGreaterThanOrEqual(0)
  expect(order.indexOf('quiet')).toBeLessThan(64 + 16)
  expect(server.accepted.size).toBe(401)
  expect(server.maxConcurrent).toBeLessThanOrEqual(64)
}, 30_000)
