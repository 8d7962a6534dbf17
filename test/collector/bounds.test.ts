import { createCollector, type Collector } from '../../src/collector'
import { post } from './helpers'

let collector: Collector
afterEach(() => collector.close())

it('keeps at most maxMessages, the newest, cutting the oldest eighth at once past the bound', async () => {
  collector = await createCollector({ port: 0, maxMessages: 80 })
  const batch = Array.from({ length: 100 }, (_, i) => ({ type: 'track', userId: 'u', event: `e${i}` }))
  expect((await post(collector.url, '/v1/batch', { batch })).status).toBe(200)
  const kept = collector.messages
  expect(kept.length).toBeLessThanOrEqual(80)
  expect(kept.length).toBeGreaterThanOrEqual(70)
  expect(kept.map((r) => r.message.event)).toEqual(Array.from({ length: kept.length }, (_, i) => `e${100 - kept.length + i}`))
})
