import { execFileSync } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Analytics } from '../../src'
import { createCollector, type Collector } from '../../src/collector'
import { assertBuilt, startCli } from '../import/run-cli'

// Issue 30: `eventrail dev --out` under load left records out of the file (293,669 of 300,000)
// once the disk fell 8 MB behind. The collector now holds its answers while the file is behind:
// the client slows down and every record the collector took is in the file.
//
// The "disk" here is a named pipe whose reader does not read until the collector stalls (no new
// record for a while) or the client has sent everything: the file then falls as far behind as
// the traffic pushes it, deterministically, whatever the speed of the machine's disk.

const MESSAGES = 60_000
const CHUNK = 5_000

let dir: string
let collector: Collector | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventrail-out-'))
})
afterEach(async () => {
  await collector?.close()
  collector = undefined
  await rm(dir, { recursive: true, force: true })
})

// Sends MESSAGES messages to the collector at `url`; resolves with what the sender counted as sent.
type Sender = (url: string) => Promise<number>

const byClient: Sender = async (url) => {
  const analytics = new Analytics('k', { host: url, flushAt: 500, flushInterval: 0, maxQueueSize: 2 * CHUNK })
  for (let sent = 0; sent < MESSAGES; sent += CHUNK) {
    for (let i = 0; i < CHUNK; i++) analytics.track({ userId: `u${sent + i}`, event: 'Imported', properties: { n: sent + i } })
    await analytics.flush()
  }
  await analytics.closeAndFlush()
  expect(analytics.stats()).toMatchObject({ dropped: 0 })
  return analytics.stats().sent
}

// `eventrail import` as a user runs it (the built bin, in a child process).
const byImport: Sender = async (url) => {
  assertBuilt()
  const file = join(dir, 'lines.jsonl')
  const lines = Array.from({ length: MESSAGES }, (_, i) => JSON.stringify({ type: 'track', userId: `u${i}`, event: 'Imported' }))
  await writeFile(file, lines.join('\n') + '\n')
  const run = await startCli(dir, ['import', file, '--write-key', 'k', '--host', url, '--json']).done
  expect(run.code).toBe(0)
  return MESSAGES
}

it.each([
  ['the client', byClient],
  ['eventrail import', byImport],
])('holds the answers while the --out file is behind (%s): records in the file == records accepted', async (_, sender) => {
  const fifo = join(dir, 'events.jsonl')
  execFileSync('mkfifo', [fifo])
  // Both ends of a pipe open together: the reader's open waits for the collector's.
  const reader = createReadStream(fifo)
  const c = await createCollector({ out: fifo, writeKeys: ['k'] })
  collector = c
  let isSent = false
  const sending = sender(c.url).finally(() => (isSent = true))

  // The reader starts once the collector stops taking records (it holds its answers) or once
  // everything was sent (a collector that never holds them).
  let last = -1
  let still = 0
  while (!isSent && still < 6) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    const now = c.stats().messages
    still = now === last ? still + 1 : 0
    last = now
  }
  let lines = 0
  const ended = new Promise<void>((resolve, reject) => {
    reader.on('data', (chunk: Buffer | string) => {
      for (const byte of Buffer.from(chunk)) if (byte === 10) lines += 1
    })
    reader.on('end', resolve).on('error', reject)
  })
  const sent = await sending
  await c.close()
  await ended

  expect(sent).toBe(MESSAGES)
  expect(c.stats()).toEqual({ messages: MESSAGES, accepted: MESSAGES, out: { written: MESSAGES, lost: 0 } })
  expect(lines).toBe(MESSAGES)
}, 60_000)
