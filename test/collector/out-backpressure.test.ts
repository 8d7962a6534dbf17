import { execFileSync } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Analytics } from '../../src'
import { createCollector, type Collector } from '../../src/collector'

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

it('holds the answers while the --out file is behind: records in the file == records accepted', async () => {
  const fifo = join(dir, 'events.jsonl')
  execFileSync('mkfifo', [fifo])
  // Both ends of a pipe open together: the reader's open waits for the collector's.
  const reader = createReadStream(fifo)
  const c = await createCollector({ out: fifo, writeKeys: ['k'] })
  collector = c
  const analytics = new Analytics('k', { host: c.url, flushAt: 500, flushInterval: 0, maxQueueSize: 2 * CHUNK })
  let isSent = false
  const sending = (async () => {
    for (let sent = 0; sent < MESSAGES; sent += CHUNK) {
      for (let i = 0; i < CHUNK; i++) analytics.track({ userId: `u${sent + i}`, event: 'Imported', properties: { n: sent + i } })
      await analytics.flush()
    }
    isSent = true
  })()

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
  await sending
  await analytics.closeAndFlush()
  await c.close()
  await ended

  const stats = c.stats()
  expect(analytics.stats()).toMatchObject({ sent: MESSAGES, dropped: 0 })
  expect(stats).toEqual({ messages: MESSAGES, accepted: MESSAGES, out: { written: MESSAGES, lost: 0 } })
  expect(lines).toBe(MESSAGES)
}, 60_000)
