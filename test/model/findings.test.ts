import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { Analytics } from '../../src'
import { sleep, startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { within } from './settling'

// Minimal reproductions of what the model-based test found (its soak, scripts/soak-model.mjs) on
// today's code, to hand to whoever fixes them. They fail today; run them with
// EVENTRAIL_MODEL_STRICT_ALL=1 npx jest test/model/findings.test.ts, and drop the guard once fixed.

const strictAll = process.env.EVENTRAIL_MODEL_STRICT_ALL === '1'
let server: FaultServer | undefined
let dir: string | undefined
let client: Analytics | undefined
afterEach(async () => {
  await client?.closeAndFlush({ timeout: 200 }).catch(() => undefined)
  await server?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  client = server = dir = undefined
})

function spoolClient(url: string, options: Record<string, unknown> = {}): Analytics {
  dir = mkdtempSync(path.join(tmpdir(), 'eventrail-model-'))
  client = new Analytics('model-key', {
    host: url,
    spool: { dir },
    maxRetryTime: 300,
    retryDelay: 5,
    maxRetryDelay: 20,
    timeout: 100,
    errorHandler: () => undefined,
    ...options,
  })
  return client
}

;(strictAll ? describe : describe.skip)("found by the model (fail on today's code)", () => {
  // Soak seeds 420342225, 1148806698, 441802263 (spool) and 793700245, 554352980
  // (spool+plugins-async+plan-drop), EVENTRAIL_MODEL_LENGTH=80.
  it('with a spool, a service that answers 429 to everything: flush(), closeAndFlush() and deliver.* still settle', async () => {
    server = await startFaultServer(() => ({ kind: 'status', status: 429, headers: { 'retry-after': '0' } }))
    const analytics = spoolClient(server.url)
    const outcomes = new Outcomes()
    analytics.track(trackMessage('a'), outcomes.callback('a'))
    const delivered = analytics.deliver.track(trackMessage('b'))
    expect(await within(analytics.flush(), 3_000)).toBe('settled')
    expect(await within(analytics.closeAndFlush(), 3_000)).toBe('settled')
    expect(await within(delivered, 1_000)).toBe('settled')
    expect(outcomes.notExactlyOnce()).toEqual([])
  })

  // Soak seed 1048919164 (plugins-async, length 60): a message in a slow plugin, then closeAndFlush({ timeout: 70 }).
  it('closeAndFlush({ timeout }) gives a message still in an async plugin its outcome (a TimeoutError) before it resolves', async () => {
    server = await startFaultServer()
    const slow = { name: 'slow', process: () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)) }
    client = new Analytics('model-key', { host: server.url, plugins: [slow], pluginTimeout: 1_000, errorHandler: () => undefined })
    const outcomes = new Outcomes()
    client.track(trackMessage('in-plugin'), outcomes.callback('in-plugin'))
    await client.closeAndFlush({ timeout: 50 })
    const atClose = outcomes.get('in-plugin')?.calls ?? 0
    await sleep(500)
    const later = `${outcomes.get('in-plugin')?.calls ?? 0} call(s), ${String(outcomes.get('in-plugin')?.error?.name)}`
    expect({ atClose, later }).toEqual({ atClose: 1, later: '1 call(s), TimeoutError' })
  })

  // Soak seeds 937655152, 726481999, 357934119, 808755849 (spool+plugins-async+plan-drop, length 80).
  it('with a spool, closeAndFlush() during an outage resolves only once every message has its outcome (a request in flight too)', async () => {
    server = await startFaultServer(() => ({ kind: 'hang' }))
    const analytics = spoolClient(server.url, { timeout: 400, maxRetryTime: 2_000 })
    const states: string[] = []
    analytics.on('breaker', (change) => states.push(change.state))
    const outcomes = new Outcomes()
    analytics.track(trackMessage('first'), outcomes.callback('first'))
    void analytics.flush()
    await until(() => states.includes('open'), 5_000, 'the breaker to open')
    for (let i = 0; i < 3; i++) analytics.track(trackMessage(`late${i}`), outcomes.callback(`late${i}`))
    void analytics.flush()
    // The first probe goes out after about 1 s and hangs: close while it is in flight.
    await until(() => server!.arrivals > 2, 5_000, 'a probe')
    await sleep(10)
    await analytics.closeAndFlush()
    const pending = [...outcomes.entries()].filter(([, o]) => o.calls === 0).map(([id]) => id)
    await sleep(1_000)
    const later = pending.map((id) => `${id}: ${outcomes.get(id)?.calls ?? 0} later, ${String(outcomes.get(id)?.error?.name)}`)
    expect({ pending, later }).toEqual({ pending: [], later: [] })
  })
})
