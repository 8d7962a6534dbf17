import { Analytics, ClosedError } from '../../src'
import { startFaultServer, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Issue 30: "track() after closeAndFlush() is silent by default (no callback, no listener:
// nothing); a message dropped this way should not go unnoticed, as the exit line already ensures."
// A refused message that no callback, errorHandler, `drop` or `error` listener hears of is told as
// a process warning (EVENTRAIL_DROPPED), once per reason per client; a client that handles its
// refusals gets no warning.

let server: FaultServer
let warnings: jest.SpyInstance
beforeAll(async () => {
  server = await startFaultServer()
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => {})
})
afterEach(() => warnings.mockRestore())

function dropped(): Array<{ text: string; code: string }> {
  return warnings.mock.calls
    .filter((call) => (call[1] as { code?: string } | undefined)?.code === 'EVENTRAIL_DROPPED')
    .map((call) => ({ text: String(call[0]), code: 'EVENTRAIL_DROPPED' }))
}

/** A client that sent one message and was closed. */
async function closedClient(options: Record<string, unknown> = {}): Promise<Analytics> {
  const analytics = new Analytics('unheard-key', { host: server.url, ...options })
  analytics.track(trackMessage('before'))
  await analytics.closeAndFlush()
  expect(server.accepted.get('before')).toBeGreaterThanOrEqual(1)
  return analytics
}

describe('a refused message nobody hears of', () => {
  it('track() after closeAndFlush() with no callback, handler or listener: one process warning per client', async () => {
    const analytics = await closedClient()
    analytics.track(trackMessage('late-1'))
    analytics.track(trackMessage('late-2'))
    analytics.identify({ userId: 'u' })
    expect(dropped()).toHaveLength(1)
    expect(dropped()[0].text).toMatch(
      /^eventrail: a message was dropped and nothing heard of it: the client is closed \(closeAndFlush was called\)/,
    )
    expect(dropped()[0].text).toMatch(/stats\(\)\.refusedBy\.closed/)
    expect(analytics.stats()).toMatchObject({ dropped: 3, refusedBy: { closed: 3 } })
    // Another client warns once too.
    const other = await closedClient()
    other.track(trackMessage('late-3'))
    expect(dropped()).toHaveLength(2)
    expect(server.accepted.has('late-1') || server.accepted.has('late-3')).toBe(false)
  })

  it('a full queue with nobody told: one warning for that reason', async () => {
    const analytics = new Analytics('unheard-key', { host: server.url, maxQueueSize: 2, flushAt: 100, flushInterval: 60_000 })
    for (let i = 0; i < 5; i++) analytics.track(trackMessage(`full-${i}`))
    expect(analytics.stats().refusedBy).toEqual({ queue_full: 3 })
    expect(dropped()).toHaveLength(1)
    expect(dropped()[0].text).toMatch(/queue_full/)
    await analytics.closeAndFlush()
    analytics.track(trackMessage('late-4'))
    expect(dropped()).toHaveLength(2)
    expect(dropped()[1].text).toMatch(/refusedBy\.closed/)
  })

  it('no warning when a callback, errorHandler, a drop or an error listener hears of it', async () => {
    const outcomes = new Outcomes()
    const withCallback = await closedClient()
    withCallback.track(trackMessage('cb'), outcomes.callback('cb'))
    const handled: Error[] = []
    const withHandler = await closedClient({ errorHandler: (err: Error) => handled.push(err) })
    withHandler.track(trackMessage('h'))
    const drops: Error[] = []
    const withDrop = (await closedClient()).on('drop', (drop) => drops.push(drop.error))
    withDrop.track(trackMessage('d'))
    const errors: Error[] = []
    const withError = (await closedClient()).on('error', (err) => errors.push(err))
    withError.track(trackMessage('e'))
    await new Promise((resolve) => setImmediate(resolve))

    expect(outcomes.get('cb')?.error).toBeInstanceOf(ClosedError)
    expect(handled).toEqual([expect.any(ClosedError)])
    expect(drops).toEqual([expect.any(ClosedError)])
    expect(errors).toEqual([expect.any(ClosedError)])
    expect(dropped()).toEqual([])
  })
})
