import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { startFaultServer, type Fault, type FaultServer } from './fault-server'

// The children load the BUILT package (dist/index.cjs): `npm test` builds first. Each child
// counts its own unhandled rejections (a real process listener) and reports them.

const FIXTURES = path.join(__dirname, 'fixtures')
const DIST = path.resolve(__dirname, '../../dist/index.cjs')
const CHILD_LIMIT_MS = 30_000

interface ChildResult {
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
  result: any
}

interface Child {
  ready: Promise<void>
  done: Promise<ChildResult>
  kill(signal: NodeJS.Signals): void
}

/** Starts a fixture with node; it is killed if it has not exited by itself within CHILD_LIMIT_MS. */
function runChild(script: string, args: string[], env: Record<string, string> = {}): Child {
  if (!existsSync(DIST))
    throw new Error(`dist/index.cjs is missing: run "npm run build" first (npm test builds before testing). Looked at ${DIST}`)
  const child = spawn(process.execPath, [path.join(FIXTURES, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let onReady: () => void = () => undefined
  const ready = new Promise<void>((resolve) => (onReady = resolve))
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    if (stdout.includes('READY\n')) onReady()
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const limit = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS)
  const done = new Promise<ChildResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(limit)
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '))
      resolve({ code, signal, stderr, result: line === undefined ? undefined : JSON.parse(line.slice('RESULT '.length)) })
    })
  })
  return { ready, done, kill: (signal) => child.kill(signal) }
}

function expectAllArrived(server: FaultServer, count: number): void {
  const missing: string[] = []
  for (let i = 0; i < count; i++) if (!server.accepted.has(`m${i}`)) missing.push(`m${i}`)
  expect(missing).toEqual([])
}

let server: FaultServer
afterEach(async () => {
  await server.close()
})

describe('SIGTERM → closeAndFlush()', () => {
  it('delivers all 2,000 messages queued when the signal comes', async () => {
    server = await startFaultServer()
    // flushAt above the count, no interval and less than a full batch (500 KB) queued: only the
    // first message goes out before SIGTERM.
    const child = runChild('track-then-sigterm.cjs', [server.url, '2000', JSON.stringify({ flushAt: 10_000, flushInterval: 0 })])
    await child.ready
    child.kill('SIGTERM')
    const { code, stderr, result } = await child.done

    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(result.atSigterm.queued).toBeGreaterThan(1_500)
    expect(result).toMatchObject({ messages: 2_000, ok: 2_000, errors: {}, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expect(result.closeError).toBeUndefined()
    expectAllArrived(server, 2_000)
    expect(server.acceptedMessages).toHaveLength(2_000)
  })

  it('delivers all 5,000 when a request is in flight at the time of the signal and some answer 503', async () => {
    // Requests are held until the signal has been sent, so the first one is surely in flight then.
    let openGate: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (openGate = resolve))
    server = await startFaultServer((index): Fault => (index % 4 === 1 ? { kind: 'status', status: 503 } : { kind: 'gate', open: gate }))
    const options = { maxInFlight: 1, retryDelay: 5, maxRetryDelay: 20, closeTimeout: 20_000 }
    const child = runChild('track-then-sigterm.cjs', [server.url, '5000', JSON.stringify(options)])
    await child.ready
    child.kill('SIGTERM')
    setTimeout(openGate, 100)
    const { code, stderr, result } = await child.done

    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(result.atSigterm.inFlight).toBeGreaterThan(0)
    expect(result.atSigterm.queued).toBeGreaterThan(0)
    expect(result).toMatchObject({ messages: 5_000, ok: 5_000, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expect(server.requests.some((r) => r.status === 503)).toBe(true)
    expectAllArrived(server, 5_000)
  })

  it('exits at the closeAndFlush timeout against a server that never answers, every callback with a TimeoutError', async () => {
    server = await startFaultServer(() => ({ kind: 'hang' }))
    const options = { timeout: 60_000, closeTimeout: 300 }
    const child = runChild('track-then-sigterm.cjs', [server.url, '500', JSON.stringify(options)])
    await child.ready
    child.kill('SIGTERM')
    const { code, result } = await child.done

    expect(code).toBe(0)
    expect(result.closeError).toBe('TimeoutError')
    expect(result).toMatchObject({ messages: 500, ok: 0, errors: { TimeoutError: 500 }, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({ TimeoutError: 500 })
  })
})

describe('the beforeExit flush (the event loop runs dry, nobody calls flush)', () => {
  it('delivers every message with default options', async () => {
    server = await startFaultServer()
    const { code, stderr, result } = await runChild('track-then-return.cjs', [server.url, '5000']).done

    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 5_000, ok: 5_000, errors: {}, notOnce: 0, unhandled: [], listeners: 1 })
    expect(result.errors).toEqual({})
    expectAllArrived(server, 5_000)
  })

  it('delivers messages below flushAt that only the 10 s interval would have sent', async () => {
    server = await startFaultServer()
    // The first message goes at once; the other 5 wait for flushInterval, whose timer is unref'd.
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '6']).done
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 6, ok: 6, notOnce: 0 })
    expectAllArrived(server, 6)
  })

  it('keeps the process alive through retries while the server first answers 503 a few times', async () => {
    server = await startFaultServer((index): Fault => (index < 4 ? { kind: 'status', status: 503 } : { kind: 'status', status: 200 }))
    const options = { retryDelay: 50, maxRetryDelay: 200, maxRetries: 10 }
    const { code, stderr, result } = await runChild('track-then-return.cjs', [server.url, '300', JSON.stringify(options)]).done

    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(server.requests.filter((r) => r.status === 503)).toHaveLength(4)
    expect(result).toMatchObject({ messages: 300, ok: 300, errors: {}, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expectAllArrived(server, 300)
  })

  it('keeps the process alive through a Retry-After wait', async () => {
    server = await startFaultServer((index): Fault =>
      index === 0 ? { kind: 'status', status: 429, headers: { 'Retry-After': '1' } } : { kind: 'status', status: 200 },
    )
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '50']).done
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 50, ok: 50, notOnce: 0, unhandled: [] })
    expectAllArrived(server, 50)
  })

  it('keeps the process alive through request timeouts (the server hangs the first attempts)', async () => {
    server = await startFaultServer((index): Fault => (index < 2 ? { kind: 'hang' } : { kind: 'status', status: 200 }))
    const options = { timeout: 300, retryDelay: 10, maxRetryDelay: 50 }
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '100', JSON.stringify(options)]).done
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 100, ok: 100, errors: {}, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expectAllArrived(server, 100)
  })

  it('keeps the process alive while messages wait for the rate limit', async () => {
    server = await startFaultServer()
    const options = { flushAt: 1, maxRequestsPerSecond: 2, maxInFlight: 10 }
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '10', JSON.stringify(options)]).done
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 10, ok: 10, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expect(server.requests.map((r) => r.messages.length)).toEqual([1, 1, 8])
    expectAllArrived(server, 10)
  })

  it('exits by itself once retries run out against a server that is down, every callback with a DeliveryError', async () => {
    server = await startFaultServer()
    await server.close()
    const options = { retryDelay: 10, maxRetryDelay: 20, maxRetries: 3 }
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '200', JSON.stringify(options)]).done
    expect(code).toBe(0)
    expect(result).toMatchObject({ messages: 200, ok: 0, errors: { DeliveryError: 200 }, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({ DeliveryError: 200 })
  })

  it('drains 20 instances through one process-wide beforeExit listener', async () => {
    server = await startFaultServer((index): Fault => (index % 3 === 0 ? { kind: 'status', status: 503 } : { kind: 'status', status: 200 }))
    const options = { retryDelay: 5, maxRetryDelay: 20, maxRetries: 20 }
    const { code, result } = await runChild('track-then-return.cjs', [server.url, '2000', JSON.stringify(options)], { INSTANCES: '20' })
      .done
    expect(code).toBe(0)
    expect(result.listeners).toBe(1)
    expect(result).toMatchObject({ messages: 2_000, ok: 2_000, errors: {}, notOnce: 0, unhandled: [] })
    expect(result.errors).toEqual({})
    expectAllArrived(server, 2_000)
  })
})
