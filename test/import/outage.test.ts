import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import * as http from 'node:http'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { assertBuilt, startCli } from './run-cli'

// The import against a service that is down: the client's outage breaker opens, the import stops
// reading (it does not send the rest of the file into the same failures), writes its checkpoint
// and says how to resume; the built bin over real HTTP on 127.0.0.1.

let dir: string
let server: http.Server
let url: string
let requests = 0
let isDown = true

beforeAll(assertBuilt)

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'eventrail-import-outage-'))
  requests = 0
  isDown = true
  server = http.createServer((req, res) => {
    requests += 1
    req.resume()
    req.on('end', () => {
      res.writeHead(isDown ? 503 : 200, { 'content-type': 'application/json' })
      res.end(isDown ? '{"error":"down"}' : '{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

it('stops at an open breaker, writes its checkpoint, exits 1 and says to --resume; --resume sends the rest once the service is back', async () => {
  const file = path.join(dir, 'export.jsonl')
  const lines = Array.from({ length: 200_000 }, (_, i) =>
    JSON.stringify({ type: 'track', userId: `u${i}`, event: 'Backfilled', messageId: `b${i}` }),
  )
  writeFileSync(file, lines.join('\n') + '\n')

  const first = await startCli(dir, ['import', file, '--write-key', 'k', '--host', url, '--rate', '20000']).done
  expect(first.code).toBe(1)
  const said = first.stdout + first.stderr
  expect(said).toContain(
    `Stopping: ${url}/v1/batch: the service is unavailable (last: the service answered 503 ("{\\"error\\":\\"down\\"}"))`,
  )
  expect(said).toMatch(
    /The service is unavailable\. Once it is reachable, run the same command with --resume to continue from line [\d,]+\./,
  )
  const checkpointFile = path.join(dir, 'export.jsonl.checkpoint')
  expect(existsSync(checkpointFile)).toBe(true)
  // It stopped reading: far from every line went out into the same failures.
  const attempted = requests
  expect(attempted).toBeLessThan(200)

  isDown = false
  const second = await startCli(dir, ['import', file, '--write-key', 'k', '--host', url, '--resume']).done
  expect(second.code).toBe(0)
  expect(JSON.parse(readFileSync(checkpointFile, 'utf8'))).toMatchObject({ line: 200_000 })
}, 60_000)
