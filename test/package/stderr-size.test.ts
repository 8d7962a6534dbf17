import { runNode } from '../helpers/run-node'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Issue 30: an uncaught error from the built package prints what a person can read. Node prints
// the source line that threw above the message; with the whole module on one line
// (minifyWhitespace) that was 25–52 KB of code before the useful line. Each script below is run by
// Node on dist/ (ESM and CommonJS) and must fail with at most ~2 KB on stderr, the message in it.
const ROOT = join(__dirname, '..', '..')
const DIST = join(ROOT, 'dist')
const MAX_STDERR_BYTES = 2048
const CHILD_LIMIT_MS = 15_000

let work: string
let server: Server
let host: string
let closedHost: string
beforeAll(async () => {
  if (!existsSync(join(DIST, 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  work = mkdtempSync(join(tmpdir(), 'eventrail-stderr-'))
  // A service that refuses every batch: the quick start's flush() rejects with a DeliveryError.
  server = createServer((req, res) => req.resume().on('end', () => res.writeHead(400).end('{"message":"bad"}')))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // A port that was just free and is closed again: the connection is refused, as with no network.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  closedHost = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
  await new Promise((resolve) => closed.close(resolve))
})
afterAll(async () => {
  rmSync(work, { recursive: true, force: true })
  await new Promise((resolve) => server.close(resolve))
})

/** Runs `body` as an ESM or CommonJS script importing `Analytics` from dist/; its exit code and stderr. */
async function runScript(format: 'esm' | 'cjs', body: string): Promise<{ code: number | null; stderr: string }> {
  const file = join(work, `${format}-${Math.random().toString(36).slice(2)}.${format === 'esm' ? 'mjs' : 'cjs'}`)
  const load =
    format === 'esm'
      ? `import { Analytics } from ${JSON.stringify(join(DIST, 'index.js'))}`
      : `const { Analytics } = require(${JSON.stringify(join(DIST, 'index.cjs'))})`
  // CommonJS has no top-level await: the script's body runs in an async function whose
  // rejection is not caught, as a user's would be.
  const script = format === 'esm' ? `${load}\n${body}\n` : `${load}\n;(async () => {\n${body}\n})()\n`
  writeFileSync(file, script)
  const { code, stderr } = await runNode(file, CHILD_LIMIT_MS)
  return { code, stderr }
}

const CASES: [string, () => string, string][] = [
  ['a mistyped option', () => `new Analytics('k', { flushInteval: 1 })`, '"flushInteval" is not an option: did you mean "flushInterval"?'],
  ['a missing write key', () => `new Analytics('')`, 'writeKey'],
  [
    "another SDK's positional call",
    () => `new Analytics('k', { enable: false }).track('u1', 'Order Completed')`,
    'must be one object, not separate arguments',
  ],
  [
    "the README's quick start against a service that refuses the batch",
    () => `const analytics = new Analytics('k', { host: '${host}', maxRetries: 0 })
analytics.track({ userId: 'u_123', event: 'Order Completed' })
await analytics.flush()`,
    'DeliveryError',
  ],
  [
    'the quick start when the connection is refused',
    () => `const analytics = new Analytics('k', { host: '${closedHost}', maxRetries: 0 })
analytics.track({ userId: 'u_123', event: 'Order Completed' })
await analytics.flush()`,
    'ECONNREFUSED',
  ],
]

describe.each(['esm', 'cjs'] as const)('an uncaught error from the %s build', (format) => {
  it.each(CASES)('%s prints at most 2 KB, the message included', async (_name, body, message) => {
    const { code, stderr } = await runScript(format, body())
    expect(code).not.toBe(0)
    expect(stderr).toContain(message)
    const bytes = Buffer.byteLength(stderr)
    expect({ bytes, within: bytes <= MAX_STDERR_BYTES }).toEqual({ bytes, within: true })
  })
})
