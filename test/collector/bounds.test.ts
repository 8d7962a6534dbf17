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

describe('deep nesting', () => {
  const deep = (levels: number): string =>
    '{"userId":"u","event":"Deep","properties":' + '{"a":'.repeat(levels) + '1' + '}'.repeat(levels) + '}'

  it('refuses a body nesting deeper than 100 levels with 400, before storing it, and keeps serving the API', async () => {
    collector = await createCollector({ port: 0 })
    const answer = await post(collector.url, '/v1/track', deep(3000))
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('the body nests deeper than 100 levels of objects and arrays')
    expect(collector.messages).toHaveLength(0)
    expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'Next' })).status).toBe(200)
    const api = await fetch(`${collector.url}/api/messages`)
    expect(api.status).toBe(200)
    expect(((await api.json()) as { messages: unknown[] }).messages).toHaveLength(1)
  })

  it('takes 98 levels inside a message, and counts brackets inside strings as text', async () => {
    collector = await createCollector({ port: 0 })
    expect((await post(collector.url, '/v1/track', deep(98))).status).toBe(200)
    const text = JSON.stringify({ userId: 'u', event: '{'.repeat(500) + '"\\"[[[' })
    expect((await post(collector.url, '/v1/track', text)).status).toBe(200)
    expect(collector.messages).toHaveLength(2)
  })
})
