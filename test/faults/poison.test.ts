import { Analytics, DeliveryError, PoisonMessageError, type BreakerChange } from '../../src'
import { sleep, until } from './fault-server'
import { startJudgingServer, type JudgingServer } from './judging-server'
import { Outcomes, trackMessage } from './outcomes'

// Issue 29, "One bad message must not stop the others": a service that answers 500 to any batch
// that holds one particular message and 200 to everything else. The batch that holds it is split
// until the message stands alone; the others are delivered, the message fails alone with its own
// error, and the outage breaker never opens. `maxRetryTime` bounds how long the message's own
// retries run, so that the file stays short; no time is asserted.

let server: JudgingServer | undefined
let analytics: Analytics | undefined
afterEach(async () => {
  await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
  analytics = undefined
  await server?.close()
  server = undefined
})

const POISON = 'poison'
const refusesPoison = (messages: any[]): number => (messages.some((m) => m?.messageId === POISON) ? 500 : 200)

function client(url: string, changes: BreakerChange[]): Analytics {
  analytics = new Analytics('poison-key', { host: url, maxRetryTime: 3_000, errorHandler: () => undefined })
  analytics.on('breaker', (change) => changes.push(change))
  return analytics
}

function expectIsolated(outcomes: Outcomes, s: JudgingServer, others: string[]): void {
  expect(outcomes.notExactlyOnce()).toEqual([])
  for (const id of others) expect(outcomes.get(id)).toEqual({ calls: 1, error: undefined })
  for (const id of others) expect(s.accepted.get(id)).toBeGreaterThanOrEqual(1)
  expect(outcomes.errorNames()).toEqual({ PoisonMessageError: 1 })
  const error = outcomes.get(POISON)?.error as PoisonMessageError
  expect(error).toBeInstanceOf(DeliveryError)
  expect(error.status).toBe(500)
  expect(error.message).toMatch(/in a request of its own/)
  // It failed alone: its last requests carried it and nothing else.
  expect(s.requests.filter((r) => r.ids.includes(POISON)).at(-1)?.ids).toEqual([POISON])
}

describe('a message the service refuses (500) while it accepts every other', () => {
  it('steady traffic, 10 messages every 100 ms: every other message is delivered, the message fails alone, the breaker stays closed', async () => {
    server = await startJudgingServer(refusesPoison)
    const changes: BreakerChange[] = []
    const a = client(server.url, changes)
    const outcomes = new Outcomes()
    const others: string[] = []
    for (let tick = 0; tick < 20; tick++) {
      for (let i = 0; i < 10; i++) {
        const id = tick === 2 && i === 5 ? POISON : `m${tick}-${i}`
        if (id !== POISON) others.push(id)
        a.track(trackMessage(id), outcomes.callback(id))
      }
      await sleep(100)
    }
    await a.flush()
    expectIsolated(outcomes, server, others)
    expect(changes).toEqual([])
    expect(a.stats()).toMatchObject({ breaker: 'closed', failed: 1, queued: 0, inFlight: 0 })
  }, 20_000)

  it('a lone batch, nothing else sent (a serverless flush): its halves tell the message from the service', async () => {
    server = await startJudgingServer(refusesPoison)
    const changes: BreakerChange[] = []
    const a = client(server.url, changes)
    const outcomes = new Outcomes()
    const others: string[] = []
    for (let i = 0; i < 40; i++) {
      const id = i === 29 ? POISON : `lone${i}`
      if (id !== POISON) others.push(id)
      a.track(trackMessage(id), outcomes.callback(id))
    }
    await a.flush()
    expectIsolated(outcomes, server, others)
    expect(changes).toEqual([])
    expect(a.stats().breaker).toBe('closed')
  }, 20_000)

  it('the message alone is retried without holding back the others: they are delivered while it still waits for its outcome', async () => {
    server = await startJudgingServer(refusesPoison)
    const changes: BreakerChange[] = []
    // flushAt 10: every tick's messages leave at once (none waits for the 10 s flushInterval).
    analytics = new Analytics('poison-key', { host: server.url, flushAt: 10, errorHandler: () => undefined })
    analytics.on('breaker', (change) => changes.push(change))
    const outcomes = new Outcomes()
    analytics.track(trackMessage(POISON), outcomes.callback(POISON))
    for (let tick = 0; tick < 15; tick++) {
      for (let i = 0; i < 10; i++) analytics.track(trackMessage(`w${tick}-${i}`), outcomes.callback(`w${tick}-${i}`))
      await sleep(100)
    }
    await until(() => outcomes.settled === 150, 10_000, 'every other message')
    expect(outcomes.errorNames()).toEqual({})
    expect(outcomes.get(POISON)?.calls).toBe(0)
    expect(changes).toEqual([])
  }, 20_000)
})
