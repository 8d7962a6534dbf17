import { Analytics } from '../../src'
import { HeldTimers } from '../../src/queue/held-timers'
import { createCollector, type Collector } from '../../src/collector'

// Issue 34: "listener exceptions reported, not swallowed", and "one safe-timer helper that
// reports a throw instead of dropping it".
let collector: Collector
beforeEach(async () => {
  collector = await createCollector()
})
afterEach(async () => {
  await collector.close()
})

it('a listener that throws is reported to error listeners and errorHandler; delivery and the other listeners go on', async () => {
  const handled: Error[] = []
  const heard: Error[] = []
  const flushes: number[] = []
  const analytics = new Analytics('listener-key', { host: collector.url, errorHandler: (err) => void handled.push(err) })
  analytics.on('flush', () => {
    throw new Error('flush listener failed')
  })
  analytics.on('flush', (info) => flushes.push(info.count))
  analytics.on('error', (err) => heard.push(err))
  analytics.track({ userId: 'u1', event: 'Heard' })
  await analytics.closeAndFlush()
  expect(collector.messages).toHaveLength(1)
  expect(flushes).toEqual([1])
  expect(handled.map((e) => e.message)).toEqual(['flush listener failed'])
  expect(heard.map((e) => e.message)).toEqual(['flush listener failed'])
})

it('an error listener that throws goes to errorHandler only (it would meet itself again)', async () => {
  const handled: string[] = []
  const analytics = new Analytics('listener-key', { host: collector.url, errorHandler: (err) => void handled.push(err.message) })
  let calls = 0
  analytics.on('error', () => {
    calls += 1
    throw new Error('error listener failed')
  })
  analytics.on('flush', () => {
    throw new Error('flush listener failed')
  })
  analytics.track({ userId: 'u1', event: 'Heard' })
  await analytics.closeAndFlush()
  expect(calls).toBe(1)
  expect(handled).toEqual(['error listener failed', 'flush listener failed'])
})

it('a timer of the client whose callback throws reports it instead of throwing into the host', async () => {
  const reported: unknown[] = []
  const timers = new HeldTimers((err) => reported.push(err))
  await new Promise<void>((resolve) => {
    timers.start(() => {
      setImmediate(resolve)
      throw new Error('timer failed')
    }, 1)
  })
  expect(reported.map((e) => (e as Error).message)).toEqual(['timer failed'])
})
