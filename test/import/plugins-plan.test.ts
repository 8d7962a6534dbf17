import { z } from 'zod'
import { Analytics, importMessages, type ImportIssue } from 'eventrail'
import { definePlan } from '../../src/plan'
import { createCollector, type Collector } from '../../src/collector'

// Issue 34: "importMessages() with plugins or a plan miscounts": a plugin's deliberate drop
// (FilteredError) and a plan violation in 'drop' mode were counted as failed, and the resume
// watermark stopped in front of them. The engine told outcomes apart by the error's name.
let collector: Collector
beforeEach(async () => {
  collector = await createCollector()
})
afterEach(async () => {
  await collector.close()
})

const row = (i: number, event = 'Order Completed', properties: Record<string, unknown> = { total: i }) => ({
  type: 'track',
  userId: `u${i}`,
  event,
  messageId: `m${i}`,
  properties,
})

async function* items(): AsyncGenerator<Record<string, unknown>> {
  yield row(1)
  yield row(2, 'Internal Ping') // a plugin drops it on purpose
  yield row(3, 'Order Completed', { total: 'three' }) // breaks the plan
  yield row(4)
}

it('a plugin’s drop is skipped and a plan violation refused; neither is a failure, and the watermark passes both', async () => {
  const plan = definePlan({ events: { 'Order Completed': z.object({ total: z.number() }), 'Internal Ping': z.object({}).passthrough() } })
  const analytics = new Analytics('key', {
    host: collector.url,
    plan,
    planMode: 'drop',
    plugins: [
      {
        name: 'no-pings',
        types: ['track'],
        process: (message) => ((message as { event?: string }).event === 'Internal Ping' ? null : message),
      },
    ],
  })
  const issues: ImportIssue[] = []
  const summary = await importMessages(items(), analytics, { onIssue: (issue) => issues.push(issue) })
  await analytics.closeAndFlush()
  expect(summary).toMatchObject({ read: 4, sent: 2, skipped: 1, refused: 1, failed: 0, pending: 0, watermark: 4 })
  expect(issues.map((i) => [i.position, i.outcome, i.error])).toEqual([[3, 'refused', 'PlanViolationError']])
  expect(collector.messages.map((m) => m.message.messageId).sort()).toEqual(['m1', 'm4'])
})
