import { Analytics, importMessages, type ImportIssue, type ImportProgress } from 'eventrail'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'

// importMessages() with a real client against the local collector over HTTP.
let collector: Collector

beforeEach(async () => {
  collector = await createCollector({ maxMessages: 100_000 })
})

afterEach(async () => {
  await collector.close()
})

async function* rows(count: number, bad: Record<number, Record<string, unknown>> = {}): AsyncGenerator<Record<string, unknown>> {
  for (let i = 1; i <= count; i++) {
    yield (
      bad[i] ?? {
        type: 'track',
        userId: `u${i}`,
        event: 'Order Completed',
        messageId: `order-${i}`,
        timestamp: '2020-01-01T00:00:00.000Z',
        properties: { row: i },
      }
    )
  }
}

describe('importMessages: the library API', () => {
  it('sends every valid row once and refuses invalid and oversize rows with their position and reason', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 1000 })
    const issues: ImportIssue[] = []
    const progress: ImportProgress[] = []
    const summary = await importMessages(
      rows(500, {
        7: { type: 'track', userId: 'u7' },
        100: { type: 'track', userId: 'u100', event: 'Big', properties: { body: 'x'.repeat(40 * 1024) } },
        250: { type: 'refund', userId: 'u250' },
      }),
      analytics,
      { onIssue: (issue) => issues.push(issue), onProgress: (p) => progress.push(p) },
    )
    expect(summary).toMatchObject({ read: 500, sent: 497, refused: 3, failed: 0, pending: 0, watermark: 500, aborted: false, abandoned: 0 })
    expect(issues.map((i) => [i.position, i.outcome, i.error])).toEqual([
      [7, 'refused', 'ValidationError'],
      [100, 'refused', 'MessageTooLargeError'],
      [250, 'refused', 'ValidationError'],
    ])
    expect(issues[0].reason).toBe('track: "event" is required and must be a non-empty string')
    const ids = collector.messages.map((r) => r.message.messageId)
    expect(ids).toHaveLength(497)
    expect(new Set(ids).size).toBe(497)
    expect(collector.messages.every((r) => r.verdict === 'accepted')).toBe(true)
    expect(progress.at(-1)).toMatchObject({ sent: 497, refused: 3 })
    await analytics.closeAndFlush()
  })

  it("never holds more than maxPending messages without an outcome, so the client's queue is never full", async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 50, maxQueueSize: 100 })
    let peak = 0
    const summary = await importMessages(rows(2000), analytics, {
      maxPending: 80,
      progressInterval: 1,
      onProgress: (p) => (peak = Math.max(peak, p.pending)),
    })
    expect(summary).toMatchObject({ sent: 2000, refused: 0, failed: 0 })
    expect(peak).toBeLessThanOrEqual(80)
    expect(analytics.stats().dropped).toBe(0)
    expect(collector.messages).toHaveLength(2000)
  })

  it('treats a QueueFullError of a full (shared) client as backpressure: the row waits and is sent, not failed', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 20, maxQueueSize: 30 })
    const summary = await importMessages(rows(600), analytics, { maxPending: 500 })
    expect(summary).toMatchObject({ sent: 600, refused: 0, failed: 0 })
    expect(analytics.stats().dropped).toBeGreaterThan(0) // the client did refuse some, for a while
    expect(new Set(collector.messages.map((r) => r.message.messageId)).size).toBe(600)
  })

  it('gives a JSON line without a messageId the same id in every run, and different lines different ids', async () => {
    const analytics = new Analytics('key', { host: collector.url })
    const lines = ['{"type":"identify","userId":"u1"}', '', '{"type":"identify","userId":"u1"}']
    const first = await importMessages(lines, analytics)
    await importMessages(lines, analytics)
    expect(first).toMatchObject({ read: 3, sent: 2, watermark: 3 })
    const ids = collector.messages.map((r) => r.message.messageId as string)
    expect(ids).toHaveLength(4)
    expect(ids.slice(2)).toEqual(ids.slice(0, 2))
    expect(ids[0]).not.toBe(ids[1])
  })

  it('stops reading when its signal aborts, and resolves once what was handed over has its outcome', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 100 })
    const controller = new AbortController()
    let handed = 0
    async function* endless(): AsyncGenerator<Record<string, unknown>> {
      for (let i = 1; ; i++) {
        handed = i
        if (i === 300) controller.abort()
        yield { type: 'track', userId: 'u', event: 'E', messageId: `m-${i}` }
      }
    }
    const summary = await importMessages(endless(), analytics, { signal: controller.signal })
    expect(summary.aborted).toBe(true)
    expect(summary.pending).toBe(0)
    expect(summary.sent).toBe(collector.messages.length)
    expect(summary.watermark).toBe(summary.sent)
    expect(handed).toBeLessThanOrEqual(301)
  })

  it('stops at the first refused row with strict, and the watermark stays before it', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 10 })
    const summary = await importMessages(rows(100, { 40: { type: 'track' } }), analytics, { strict: true, maxPending: 5 })
    expect(summary).toMatchObject({ stoppedAt: 40, refused: 1, watermark: 39 })
    expect(summary.read).toBeLessThan(100)
  })

  it('counts a message whose request failed for good, and the watermark never passes it', async () => {
    const port = collector.port
    await collector.close()
    const analytics = new Analytics('key', { host: `http://127.0.0.1:${port}`, maxRetries: 0, errorHandler: () => {} })
    const issues: ImportIssue[] = []
    const summary = await importMessages(rows(3), analytics, { onIssue: (i) => issues.push(i) })
    expect(summary).toMatchObject({ sent: 0, failed: 3, watermark: 0 })
    expect(issues.every((i) => i.outcome === 'failed' && i.error === 'DeliveryError')).toBe(true)
    collector = await createCollector()
  })

  it('names a bad argument', async () => {
    const analytics = new Analytics('key', { enable: false })
    await expect(importMessages(42 as never, analytics)).rejects.toThrow(
      'importMessages: "source" must be an iterable or an async iterable of messages',
    )
    await expect(importMessages([], {} as never)).rejects.toThrow('importMessages: "analytics" must be an Analytics client')
    await expect(importMessages([], analytics, { maxPendingBytes: -1 })).rejects.toThrow(
      '"maxPendingBytes" must be an integer of at least 1',
    )
  })

  it('rejects with the error of a source that throws, once what it gave has its outcome (the last progress has the watermark)', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 1000 })
    const cursorError = new Error('cursor lost its connection')
    async function* failing(): AsyncGenerator<Record<string, unknown>> {
      yield* rows(120)
      throw cursorError
    }
    const progress: ImportProgress[] = []
    await expect(importMessages(failing(), analytics, { onProgress: (p) => progress.push(p) })).rejects.toBe(cursorError)
    // Nothing handed over was left without an outcome: all 120 arrived, and the watermark says so.
    expect(collector.messages).toHaveLength(120)
    expect(progress.at(-1)).toMatchObject({ read: 120, sent: 120, pending: 0, watermark: 120 })
    await analytics.closeAndFlush()
  })

  it('refuses the item for which the messageId option throws, naming the option, and still settles (21/9)', async () => {
    const analytics = new Analytics('key', { host: collector.url, flushAt: 100 })
    const issues: ImportIssue[] = []
    const items = Array.from({ length: 10 }, (_, i) => ({ type: 'track', userId: `u${i + 1}`, event: 'E', properties: { row: i + 1 } }))
    const summary = await importMessages(items, analytics, {
      messageId: (message) => {
        const row = (message.properties as { row: number }).row
        if (row === 4) throw new Error('no primary key on row 4')
        if (row === 7) return 7 as never
        return `row-${row}`
      },
      onIssue: (issue) => issues.push(issue),
    })
    expect(summary).toMatchObject({ read: 10, sent: 8, refused: 2, failed: 0, skipped: 0, pending: 0, watermark: 10 })
    expect(issues.map((i) => [i.position, i.outcome, i.reason])).toEqual([
      [4, 'refused', 'importMessages: "messageId" option threw for this item: no primary key on row 4'],
      [7, 'refused', 'importMessages: "messageId" option must return a string or undefined (got a number)'],
    ])
    expect(collector.messages.map((r) => r.message.messageId).sort()).toEqual([
      'row-1',
      'row-10',
      'row-2',
      'row-3',
      'row-5',
      'row-6',
      'row-8',
      'row-9',
    ])
    await analytics.closeAndFlush()
  })

  it('gives every item an outcome: null and other non-messages are refused with their position, blank lines skipped (21/9)', async () => {
    const analytics = new Analytics('key', { host: collector.url })
    const issues: ImportIssue[] = []
    const line = JSON.stringify({ type: 'track', userId: 'u', event: 'E' })
    const source = [{ type: 'identify', userId: 'u1' }, null, line, 42, '   ', undefined, { type: 'track', userId: 'u2', event: 'E' }]
    const summary = await importMessages(source as never, analytics, { onIssue: (issue) => issues.push(issue) })
    expect(summary).toMatchObject({ read: 7, sent: 3, refused: 3, failed: 0, skipped: 1, pending: 0, watermark: 7 })
    expect(summary.read).toBe(summary.sent + summary.refused + summary.failed + summary.skipped)
    expect(issues.map((i) => [i.position, i.reason])).toEqual([
      [2, 'importMessages: "item" must be a message object or a line of JSON text (got null)'],
      [4, 'importMessages: "item" must be a message object or a line of JSON text (got number)'],
      [6, 'importMessages: "item" must be a message object or a line of JSON text (got undefined)'],
    ])
    expect(collector.messages).toHaveLength(3)
    await analytics.closeAndFlush()
  })

  it('refuses an object whose reading throws (a hostile getter) instead of leaving it without an outcome', async () => {
    const analytics = new Analytics('key', { host: collector.url })
    const hostile = {
      type: 'track',
      userId: 'u',
      event: 'E',
      get messageId(): string {
        throw new Error('trap')
      },
    }
    const issues: ImportIssue[] = []
    const summary = await importMessages([hostile, { type: 'track', userId: 'u', event: 'E' }], analytics, {
      onIssue: (issue) => issues.push(issue),
    })
    expect(summary).toMatchObject({ read: 2, sent: 1, refused: 1, pending: 0 })
    expect(issues[0]).toMatchObject({ position: 1, outcome: 'refused', reason: 'importMessages: "item" could not be read (trap)' })
    await analytics.closeAndFlush()
  })

  it('applies a very low rate as a wait (no timer overflow), and an abort ends the wait at once (21/12)', async () => {
    const analytics = new Analytics('key', { host: collector.url })
    const warnings: Error[] = []
    const onWarning = (warning: Error): void => void warnings.push(warning)
    process.on('warning', onWarning)
    const controller = new AbortController()
    const startedAt = Date.now()
    const running = importMessages(rows(5), analytics, { rate: 1e-9, signal: controller.signal })
    while (collector.messages.length === 0 && Date.now() - startedAt < 10_000) await new Promise((resolve) => setTimeout(resolve, 20))
    await new Promise((resolve) => setTimeout(resolve, 300))
    // One message a ~31 years: only the first has gone.
    expect(collector.messages).toHaveLength(1)
    controller.abort()
    const summary = await running
    process.off('warning', onWarning)
    expect(summary).toMatchObject({ read: 1, sent: 1, aborted: true, pending: 0 })
    // Not the 31 years, nor the longest timer Node keeps (~24.8 days): at once, or as soon as a loaded machine gets to it.
    expect(Date.now() - startedAt).toBeLessThan(15_000)
    expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([])
    await analytics.closeAndFlush()
  })
})
