import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import * as http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyInstalled, packedPackage } from '../../helpers/packed'
import { startTestServer, type ReceivedRequest, type TestServer } from '../../helpers/test-server'

const ROOT = join(__dirname, '..', '..', '..')
const FIXTURES = join(__dirname, '..', 'fixtures')
const HOST = join(FIXTURES, 'host.mjs')
// A runtime that does not listen within this long, or does not stop, is killed: each test's time
// stays bounded and no child outlives the test file.
const START_LIMIT_MS = 30_000
const STOP_LIMIT_MS = 8_000

/**
 * A user's project: the packed package (`npm pack`, installed once per run and copied here) in
 * `node_modules/eventrail`, and the edge functions of test/edge/fixtures. It has no dependency to
 * install (a bundle for the edge needs none). Returns the directory and how to remove it.
 */
export function packedApp(): { app: string; remove: () => void } {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  const packed = packedPackage() // once per run, shared (test/helpers/packed.ts)
  const work = mkdtempSync(join(tmpdir(), 'eventrail-edge-'))
  const app = join(work, 'app')
  mkdirSync(join(app, 'node_modules'), { recursive: true })
  copyInstalled(packed, app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'edge-app', private: true, type: 'module' }))
  for (const file of ['scenarios.mjs', 'worker.mjs', 'edge-function.mjs']) copyFileSync(join(FIXTURES, file), join(app, file))
  return { app, remove: () => rmSync(work, { recursive: true, force: true }) }
}

/** An edge runtime serving one bundled edge function on 127.0.0.1, in a child process. */
export interface EdgeHost {
  readonly url: string
  /** Stops the runtime (workerd included) and waits until its process is gone. */
  stop(): Promise<void>
}

/** Bundles `entry` of `app` and serves it in workerd (through Miniflare) or Vercel's Edge Runtime. */
export function startEdgeHost(app: string, entry: string, runtime: 'workerd' | 'edge-runtime', date = '', flags = ''): Promise<EdgeHost> {
  // Its own process group, so that workerd, Miniflare's child, goes with it if it has to be killed.
  // Its temporary files (Miniflare leaves a miniflare-* directory per start) go inside the app's
  // work directory, which packedApp's remove() deletes, not into the OS temp directory.
  const tmp = join(app, '.tmp')
  mkdirSync(tmp, { recursive: true })
  const env = { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp }
  const child = spawn(process.execPath, [HOST, app, entry, runtime, date, flags], { cwd: ROOT, detached: true, stdio: 'pipe', env })
  let output = ''
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const kill = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  const stop = async () => {
    child.stdin.end()
    child.kill('SIGTERM')
    const timer = setTimeout(kill, STOP_LIMIT_MS)
    await exited
    clearTimeout(timer)
    kill() // anything the group left behind
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill()
      reject(new Error(`${runtime} did not start within ${START_LIMIT_MS} ms:\n${output.slice(-3000)}`))
    }, START_LIMIT_MS)
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const line = output.split('\n').find((l) => l.startsWith('{"url"'))
      if (!line) return
      clearTimeout(timer)
      resolve({ url: (JSON.parse(line) as { url: string }).url, stop })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`${runtime} exited with ${code} before it listened:\n${output.slice(-3000)}`))
    })
  })
}

/** What a scenario answered. */
export interface ScenarioAnswer {
  status: number
  body: {
    ok?: boolean
    error?: string
    stack?: string
    handed?: number
    fulfilled?: number
    // spool-refused: the error the constructor threw.
    name?: string
    field?: string
    message?: string
    outcome?: { delivered: boolean; messageId?: string; error?: string }
  }
}

/** GETs one scenario of the edge function (no keep-alive: the test leaves no socket open). */
export function runScenario(
  host: EdgeHost,
  scenario: string,
  sink: TestServer,
  id: string | number,
  runtime: string,
): Promise<ScenarioAnswer> {
  const query = new URLSearchParams({ sink: sink.url, id: String(id), runtime })
  return new Promise((resolve, reject) => {
    const request = http.get(`${host.url}/${scenario}?${query.toString()}`, { agent: false, timeout: 20_000 }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as ScenarioAnswer['body'] })
        } catch {
          resolve({ status: response.statusCode ?? 0, body: { error: text } })
        }
      })
    })
    request.on('timeout', () => request.destroy(new Error(`${scenario}: no answer within 20 s`)))
    request.on('error', reject)
  })
}

type SinkRequest = ReceivedRequest & { status?: number }

/**
 * The service the edge functions send to: a node:http server on 127.0.0.1 that answers 200, except
 * the first request of the write key `RETRY`, answered 503. Each request records its status.
 */
export function startSink(): Promise<TestServer> {
  let retried = false
  return startTestServer((request: SinkRequest) => {
    request.status = writeKeyOf(request) === 'RETRY' && !retried ? 503 : 200
    if (request.status === 503) retried = true
    return request.status
  })
}

/** The write key of a request the sink received. */
export function writeKeyOf(request: ReceivedRequest): string {
  const auth = String(request.headers.authorization ?? '')
  return Buffer.from(auth.replace(/^Basic /, ''), 'base64')
    .toString('utf8')
    .replace(/:$/, '')
}

/** The messages of one write key that the sink answered with a 2xx. */
export function acceptedMessages(sink: TestServer, writeKey: string): Record<string, any>[] {
  return sink.requests
    .filter((r: SinkRequest) => writeKeyOf(r) === writeKey && r.status === 200)
    .flatMap((r) =>
      r.path === '/v1/batch' ? ((r.body as { batch?: Record<string, any>[] })?.batch ?? []) : [r.body as Record<string, any>],
    )
}

/**
 * Waits until the sink has accepted `count` messages of `writeKey` (the background work of an
 * edge function arrives after its response), or `limitMs` passed; returns them either way.
 */
export async function acceptedWithin(sink: TestServer, writeKey: string, count: number, limitMs = 10_000): Promise<Record<string, any>[]> {
  const deadline = Date.now() + limitMs
  while (acceptedMessages(sink, writeKey).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  // A little longer, so that a message sent twice would show.
  await new Promise((r) => setTimeout(r, 50))
  return acceptedMessages(sink, writeKey)
}
