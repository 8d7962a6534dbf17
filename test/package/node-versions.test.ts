import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCollector, type Collector } from '../../src/collector'
import { VERSION } from '../../src'
import { installNode, SUPPORTED_NODE_VERSIONS } from '../helpers/node-versions'

// The built package on every supported Node version (docs/decisions.md), not only on the one
// running the tests: the ESM build through fixtures/runtime-check.mjs (the global fetch, gzip,
// the recorder, the default transport against a collector on 127.0.0.1) and the CommonJS build
// through fixtures/cjs-check.cjs (a refused Date id, importMessages loading its engine). Each
// Node comes from the npm registry (test/helpers/node-versions.ts); without it the test is
// skipped and its title says why.
const ROOT = join(__dirname, '..', '..')
const FIXTURES = join(__dirname, 'fixtures')
const CHILD_LIMIT_MS = 60_000
const TEST_TIMEOUT_MS = 120_000
// Where runtime-check.mjs makes its disk-spool directory, one a Node version.
const SPOOL_ROOT = mkdtempSync(join(tmpdir(), 'eventrail-node-versions-spool-'))
afterAll(() => rmSync(SPOOL_ROOT, { recursive: true, force: true }))

let collector: Collector
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
})
beforeEach(async () => {
  collector = await createCollector()
})
afterEach(() => collector.close())

// Asynchronous: the collector runs in this process and must answer while the script runs. A hung
// child is killed well inside the test's timeout, so nothing outlives the test.
function run(binary: string, args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0 || stderr !== '') return reject(new Error(`${binary} exited with ${code ?? signal}:\n${stdout}${stderr}`))
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? ''))
      } catch {
        reject(new Error(`${binary} printed no report:\n${stdout}`))
      }
    })
  })
}

it(
  `the CommonJS build in the Node running the tests (${process.version}) loads the import engine on first use`,
  async () => {
    const report = await run(process.execPath, [join(FIXTURES, 'cjs-check.cjs')])
    expect(report).toEqual(expect.objectContaining({ imported: 2, sent: ['m1', 'm2'] }))
  },
  TEST_TIMEOUT_MS,
)

describe.each(SUPPORTED_NODE_VERSIONS.map((version) => installNode(version)))('Node $version', (node) => {
  const test = 'binary' in node ? it : it.skip
  const why = 'reason' in node ? ` (skipped: ${node.reason})` : ''

  test(
    `the ESM build sends with the global fetch, gzip, the recorder, the disk spool and by default with node:http${why}`,
    async () => {
      const spoolDir = join(SPOOL_ROOT, node.version)
      const report = await run((node as { binary: string }).binary, [join(FIXTURES, 'runtime-check.mjs'), collector.url, spoolDir])
      expect(report).toEqual({
        runtime: `node ${node.version}`,
        recorded: 1,
        defaultSendsWith: 'node:http',
        defaultTransport: 'ok',
        spool: { closedDown: { waiting: 2 }, replayed: 2, replayedAtClose: { waiting: 0 } },
        context: { mixed: 0, recorded: 20 },
      })
      const arrived = collector.messages.map((r) => [r.writeKey, r.path, r.type, r.verdict])
      expect(arrived).toEqual(
        expect.arrayContaining([
          ['GLOBAL_FETCH', '/v1/batch', 'identify', 'accepted'],
          ['GLOBAL_FETCH', '/v1/batch', 'track', 'accepted'],
          ['GLOBAL_FETCH', '/v1/alias', 'alias', 'accepted'],
          ['GZIP', '/v1/batch', 'track', 'accepted'],
          ['DEFAULT_FETCH', '/v1/batch', 'track', 'accepted'],
          ['SPOOL', '/v1/batch', 'track', 'accepted'],
        ]),
      )
      expect(arrived).toHaveLength(7)
    },
    TEST_TIMEOUT_MS,
  )

  test(
    `the CommonJS build refuses a Date id and imports, loading the import engine on first use${why}`,
    async () => {
      const report = await run((node as { binary: string }).binary, [join(FIXTURES, 'cjs-check.cjs')])
      expect(report).toEqual({
        version: VERSION,
        refused: 'track: "userId" must be a non-empty string or a finite number (got a Date)',
        imported: 2,
        sent: ['m1', 'm2'],
      })
    },
    TEST_TIMEOUT_MS,
  )
})
