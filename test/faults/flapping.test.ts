import { Analytics, type BreakerChange } from '../../src'
import { sleep } from './fault-server'
import { startJudgingServer, type JudgingServer } from './judging-server'
import { Outcomes, trackMessage } from './outcomes'

// Issue 29, "A flapping service opens the breaker": a service down for 0.5 s (503), then up for
// 0.5 s, over and over. It is not down: the outage breaker must not open, and every message is
// delivered. Defaults throughout; no time is asserted.

let server: JudgingServer | undefined
let analytics: Analytics | undefined
afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  await server?.close()
  server = undefined
})

function flapping(): (messages: any[]) => number {
  const start = Date.now()
  return () => (Math.floor((Date.now() - start) / 500) % 2 === 0 ? 503 : 200)
}

describe('a service that is down 0.5 s, up 0.5 s', () => {
  it.each([1, 2])(
    'run %i: 300 messages, 10 every 100 ms: all delivered, the breaker never opens',
    async () => {
      server = await startJudgingServer(flapping())
      const changes: BreakerChange[] = []
      analytics = new Analytics('flap-key', { host: server.url, errorHandler: () => undefined })
      analytics.on('breaker', (change) => changes.push(change))
      const outcomes = new Outcomes()
      for (let tick = 0; tick < 30; tick++) {
        for (let i = 0; i < 10; i++) analytics.track(trackMessage(`f${tick}-${i}`), outcomes.callback(`f${tick}-${i}`))
        await sleep(100)
      }
      await analytics.flush()
      expect(changes).toEqual([])
      expect(outcomes.notExactlyOnce()).toEqual([])
      expect(outcomes.errorNames()).toEqual({})
      expect(server.accepted.size).toBe(300)
      expect(analytics.stats()).toMatchObject({ breaker: 'closed', failed: 0, sent: 300 })
    },
    30_000,
  )
})
