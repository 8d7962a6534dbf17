import { Analytics, DeliveryError, PoisonMessageError, type BreakerChange } from '../../src'
import { sleep, until } from '../faults/fault-server'
import { startJudgingServer, type JudgingServer } from '../faults/judging-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { deadPart, frame, segment, segmentFiles, spoolTestFile, wireMessage } from './helpers'

// Issue 29, "A poison message wedges the spool": with a spool, a request the service did not take
// is sent again; a message the service refuses (500 to any batch that holds it, 200 to everything
// else) must not be sent again forever, nor hold back the others, nor keep the breaker open. It is
// split off until it stands alone, fails alone with a PoisonMessageError, and its record is acked.
// `maxRetryTime` bounds its own retries, so that the file stays short; no time is asserted.

const { keep, tempDir } = spoolTestFile()
let server: JudgingServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const POISON = 'poison'
let isDown = false
const judge = (messages: any[]): number => (isDown || messages.some((m) => m?.messageId === POISON) ? 500 : 200)

function client(dir: string, changes: BreakerChange[], errors: Error[] = []): Analytics {
  const analytics = keep(new Analytics('poison-key', { host: (server as JudgingServer).url, spool: { dir }, maxRetryTime: 3_000 }))
  analytics.on('breaker', (change) => changes.push(change)).on('error', (err) => errors.push(err))
  return analytics
}

beforeEach(() => {
  isDown = false
})

describe('a message the service refuses, with a spool', () => {
  it('steady traffic: every other message is delivered, the message fails alone and its record is acked, the breaker stays closed', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const changes: BreakerChange[] = []
    const analytics = client(dir, changes)
    const outcomes = new Outcomes()
    for (let tick = 0; tick < 15; tick++) {
      for (let i = 0; i < 10; i++) {
        const id = tick === 1 && i === 4 ? POISON : `s${tick}-${i}`
        analytics.track(trackMessage(id), outcomes.callback(id))
      }
      await sleep(100)
    }
    await until(() => outcomes.settled === 150, 15_000, 'every outcome')
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ PoisonMessageError: 1 })
    expect(outcomes.get(POISON)?.error).toBeInstanceOf(DeliveryError)
    expect(server.accepted.size).toBe(149)
    expect(changes).toEqual([])
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 20_000)

  it('after a restart: the records of a gone client are sent, the one refused fails alone and is acked, the others are not held back', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const ids = Array.from({ length: 300 }, (_, i) => (i === 137 ? POISON : `r${i}`))
    await deadPart(dir, { '000001.log': segment(...ids.map((id) => frame(wireMessage(id)))) }, { key: 'poison-key', host: server.url })
    const changes: BreakerChange[] = []
    const errors: Error[] = []
    const analytics = client(dir, changes, errors)
    await until(() => server?.accepted.size === 299 && errors.length > 0, 15_000, 'the others delivered and the message failed')
    expect(errors.map((e) => e.name)).toEqual(['PoisonMessageError'])
    expect((errors[0] as PoisonMessageError).status).toBe(500)
    expect(changes).toEqual([])
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(analytics.stats()).toMatchObject({ sent: 299, failed: 1, breaker: 'closed' })
    expect(segmentFiles(dir)).toEqual([])
  }, 20_000)

  it('the service was down (the breaker opened) and comes back: the message sent again does not keep the breaker open', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const changes: BreakerChange[] = []
    const analytics = client(dir, changes)
    const outcomes = new Outcomes()
    isDown = true
    // The message goes first, alone: it is the first the probes would carry.
    for (let i = 0; i < 30; i++) {
      const id = i === 0 ? POISON : `d${i}`
      analytics.track(trackMessage(id), outcomes.callback(id))
    }
    expect(await analytics.flush()).toEqual({ waiting: 30 })
    expect(changes.map((c) => c.state)).toEqual(['open'])

    isDown = false
    for (let i = 30; i < 40; i++) analytics.track(trackMessage(`d${i}`), outcomes.callback(`d${i}`))
    await until(() => outcomes.settled === 40, 15_000, 'every outcome')
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ PoisonMessageError: 1 })
    expect(server.accepted.size).toBe(39)
    expect(changes.map((c) => c.state)).toEqual(['open', 'closed'])
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  }, 20_000)
})
