import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { Analytics, QueueFullError } from '../../src'
import { startFaultServer, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// Unhandled rejections: Jest 30 fails the running test on any (jest-circus installs its own
// process listener and hides the real process from test code), so none can pass unnoticed here.
// The child process counts its own with a real listener and reports them.

const DIST = path.resolve(__dirname, '../../dist/index.cjs')
const MB = 1024 * 1024

/**
 * The bound: with maxQueueSize 1,000 (messages of ~330 bytes), heapUsed after gc() stays under
 * baseline + 8 MB at every point of the outage (the queue itself is under 1 MB; the rest is
 * the transport's modules, loaded on the first send, and compiled code), and it is flat: from the
 * 11,000th message to the 100,000th, and over the outage's retries, it grows by less than 1 MB.
 * Measured on Node 20 when node-fetch was the transport: +0.9 MB with the queue full, +3.7 MB after it was loaded,
 * +3.8 MB after 100,000 messages, +4.0 MB after a further 2 s of retries (~500 of them).
 */
const HEAP_BOUND_BYTES = 8 * MB
const HEAP_FLAT_BYTES = 1 * MB

function runOutageChild(env: Record<string, string>): Promise<{ code: number | null; stderr: string; result: any }> {
  if (!existsSync(DIST))
    throw new Error(`dist/index.cjs is missing: run "npm run build" first (npm test builds before testing). Looked at ${DIST}`)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'outage.cjs')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
    const limit = setTimeout(() => child.kill('SIGKILL'), 50_000)
    child.on('close', (code) => {
      clearTimeout(limit)
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '))
      resolve({ code, stderr, result: line === undefined ? undefined : JSON.parse(line.slice('RESULT '.length)) })
    })
  })
}

describe('an outage: the server is down while 100,000 messages are tracked', () => {
  it('keeps memory flat, refuses the overflow with QueueFullError, fails what waits once the breaker opens, and delivers what is sent once the server is back', async () => {
    const { code, stderr, result } = await runOutageChild({ TOTAL: '100000', MAX_QUEUE: '1000', OUTAGE_MS: '2000' })
    try {
      expect(stderr).toBe('')
      expect(code).toBe(0)
      expect(result.unhandled).toEqual([])

      // Memory: bounded and flat.
      const heap: number[] = result.samples.map((s: number[]) => s[1])
      const held: number[] = result.samples.map((s: number[]) => s[2])
      expect(Math.max(...heap, ...result.outageSamples)).toBeLessThan(HEAP_BOUND_BYTES)
      const at11k = result.samples.find((s: number[]) => s[0] === 11_000)[1]
      expect(Math.max(...heap.slice(1), ...result.outageSamples) - at11k).toBeLessThan(HEAP_FLAT_BYTES)
      expect(held.every((n) => n <= 1_000)).toBe(true)
      expect(held[0]).toBe(1_000)

      // The breaker opened and stayed open: what waited failed at once with a ServiceUnavailableError.
      expect(result.afterTracking.breaker).not.toBe('closed')
      expect(result.beforeRecovery.breaker).not.toBe('closed')
      expect(result.callbackErrors.ServiceUnavailableError).toBeGreaterThan(0)

      // Every message was told, once: QueueFullError or ServiceUnavailableError, in its callback or
      // (without one) in errorHandler, which heard of the outage once, not once per message.
      expect(result.notOnce).toBe(0)
      expect(Object.keys(result.callbackErrors).sort()).toEqual(['QueueFullError', 'ServiceUnavailableError'])
      expect(result.handlerErrors.ServiceUnavailableError).toBe(1)
      expect(Object.keys(result.handlerErrors).sort()).toEqual(['QueueFullError', 'ServiceUnavailableError'])
      expect(result.afterTracking.dropped).toBeGreaterThan(90_000)
      expect(result.receivedDuringOutage).toBe(0)
      expect(result.refusedButReceived).toBe(0)

      // After the outage, messages tracked once the service is back were delivered, once each.
      expect(result.recovery).toMatchObject({ calls: 1_000, delivered: 1_000, errors: {} })
      expect(result.afterRecovery).toMatchObject({ queued: 0, inFlight: 0, sent: 1_000, breaker: 'closed' })
      expect(result.recoveryReceived).toBe(1_000)
      expect(result.duplicates).toBe(0)
    } catch (err) {
      // The child's whole report, to tell a bound that moved from a slow machine.
      ;(err as Error).message += `\n\nchild report: ${JSON.stringify({ code, stderr, result })}`
      throw err
    }
  }, 60_000)
})

describe('an outage, in process', () => {
  let server: FaultServer
  let analytics: Analytics | undefined
  afterEach(async () => {
    await analytics?.closeAndFlush({ timeout: 100 }).catch(() => undefined)
    analytics = undefined
    await server.close()
  })

  const options = { retryDelay: 5, maxRetryDelay: 20, maxRetries: 100_000, maxRetryTime: 600_000, timeout: 500 }

  it('holds at most maxQueueBytes of messages and refuses the rest with a QueueFullError naming maxQueueBytes', async () => {
    server = await startFaultServer()
    await server.close()
    analytics = new Analytics('outage-key', { host: server.url, ...options, maxQueueBytes: 50_000 })
    const outcomes = new Outcomes()
    let accepted = 0
    for (let i = 0; i < 2_000; i++) {
      const message = trackMessage(`m${i}`, { padding: 'p'.repeat(200) })
      analytics.track(message, outcomes.callback(`m${i}`))
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (const [, outcome] of outcomes.entries()) if (outcome.calls === 0) accepted += 1
    const { queued, inFlight, dropped } = analytics.stats()
    expect(queued + inFlight).toBe(accepted)
    expect(dropped).toBe(2_000 - accepted)
    expect(outcomes.errorNames()).toEqual({ QueueFullError: 2_000 - accepted })
    for (const [, outcome] of outcomes.entries()) {
      if (outcome.error) expect(outcome.error.message).toMatch(/maxQueueBytes 50000/)
    }
    expect(accepted).toBeGreaterThan(50)

    await server.reopen()
    await analytics.flush()
    expect(server.accepted.size).toBe(accepted)
    // What was held is what arrived: its serialized bytes fit in maxQueueBytes, one more would not.
    const sizes = server.acceptedMessages.map((m) => Buffer.byteLength(JSON.stringify(m)))
    const acceptedBytes = sizes.reduce((a, b) => a + b, 0)
    expect(acceptedBytes).toBeLessThanOrEqual(50_000)
    expect(acceptedBytes + Math.min(...sizes)).toBeGreaterThan(50_000)
    expect(outcomes.notExactlyOnce()).toEqual([])
  })

  it('accepts messages again once the queue drains after the outage', async () => {
    server = await startFaultServer()
    await server.close()
    analytics = new Analytics('outage-key', { host: server.url, ...options, maxQueueSize: 10 })
    const outcomes = new Outcomes()
    for (let i = 0; i < 30; i++) analytics.track(trackMessage(`a${i}`), outcomes.callback(`a${i}`))
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(outcomes.errorNames()).toEqual({ QueueFullError: 20 })

    await server.reopen()
    await analytics.flush()
    for (let i = 0; i < 10; i++) analytics.track(trackMessage(`b${i}`), outcomes.callback(`b${i}`))
    await analytics.flush()

    expect(outcomes.errorNames()).toEqual({ QueueFullError: 20 })
    const refused = [...outcomes.entries()].filter(([, o]) => o.error instanceof QueueFullError).map(([id]) => id)
    expect(refused.every((id) => !server.accepted.has(id))).toBe(true)
    expect(server.accepted.size).toBe(20)
    expect(outcomes.notExactlyOnce()).toEqual([])
  })
})
