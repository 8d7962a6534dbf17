import { Analytics, type BreakerChange } from '../../src'
import { sleep } from './fault-server'
import { startJudgingServer, type JudgingServer } from './judging-server'
import { Outcomes, trackMessage } from './outcomes'

// Issue 29, "A flapping service opens the breaker": a service down for 0.5 s (503), then up for
// 0.5 s, over and over. It is not down: the outage breaker must not open, and every message is
// delivered. Defaults throughout; no time is asserted. On the code before the fix the steady runs
// failed 2 of 6 runs here (a batch waiting for its retry held the only batch place
// through an up phase, and the breaker counted failures on both sides of it); the pure rule is
// pinned in test/unit/breaker.test.ts.

let server: JudgingServer | undefined
let analytics: Analytics | undefined
const clients: Analytics[] = []
afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  for (const client of clients.splice(0)) await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  await server?.close()
  server = undefined
})

function flapping(): (messages: any[]) => number {
  const start = Date.now()
  return () => (Math.floor((Date.now() - start) / 500) % 2 === 0 ? 503 : 200)
}

describe('a service that is down 0.5 s, up 0.5 s', () => {
  it.each([1, 2, 3])(
    'run %i: 250 messages, 10 every 100 ms: all delivered, the breaker never opens',
    async () => {
      server = await startJudgingServer(flapping())
      const changes: BreakerChange[] = []
      analytics = new Analytics('flap-key', { host: server.url, errorHandler: () => undefined })
      analytics.on('breaker', (change) => changes.push(change))
      const outcomes = new Outcomes()
      for (let tick = 0; tick < 25; tick++) {
        for (let i = 0; i < 10; i++) analytics.track(trackMessage(`f${tick}-${i}`), outcomes.callback(`f${tick}-${i}`))
        await sleep(100)
      }
      await analytics.flush()
      expect(changes).toEqual([])
      expect(outcomes.notExactlyOnce()).toEqual([])
      expect(outcomes.errorNames()).toEqual({})
      expect(server.accepted.size).toBe(250)
      expect(analytics.stats()).toMatchObject({ breaker: 'closed', failed: 0, sent: 250 })
    },
    30_000,
  )

  it('40 clients, each with one batch sent in a down phase and nothing else: no breaker opens, every message is delivered', async () => {
    // A client with a single request sees the service only through that request's retries: "down"
    // must be measured by attempts that keep looking, not guessed across a wait that hid an up phase.
    server = await startJudgingServer(flapping())
    const url = server.url
    const opened: BreakerChange[] = []
    const outcomes = new Outcomes()
    for (let c = 0; c < 40; c++) {
      const client = new Analytics('flap-key', { host: url, errorHandler: () => undefined })
      client.on('breaker', (change) => opened.push(change))
      clients.push(client)
      for (let i = 0; i < 10; i++) client.track(trackMessage(`c${c}-${i}`), outcomes.callback(`c${c}-${i}`))
    }
    await Promise.all(clients.map((client) => client.flush()))
    expect(opened).toEqual([])
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    expect(server.accepted.size).toBe(400)
  }, 30_000)
})
