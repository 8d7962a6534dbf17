import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Analytics, type FlushInfo, type ReplayInfo } from '../../src'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { deadPart, frame, segment, segmentFiles, spoolTestFile, wireMessage } from './helpers'

// Issue 22: past the memory bound (maxQueueSize), messages wait on the disk only and are read back
// as memory frees up. flush() still "resolves when every message enqueued before the call has an
// outcome", and closeAndFlush() waits for what a gone client left ("closeAndFlush() waits for
// those too"), however many more than the memory holds.

const { keep, tempDir } = spoolTestFile()
let server: SlowServer
afterEach(async () => {
  await server?.close()
})

function client(dir: string, maxQueueSize: number): Analytics {
  const analytics = keep(new Analytics('bound-key', { host: server.url, spool: { dir }, maxQueueSize }))
  return analytics
}

interface SlowServer {
  url: string
  /** messageId → how many times it arrived. */
  accepted: Map<string, number>
  close(): Promise<void>
}

/**
 * Answers 200 at once, except to the request that carries the message `lastId` (the last one
 * read back from the disk): that one after 300 ms, so that it is still in flight when the others
 * have their outcome.
 */
async function slowLast(lastId: string): Promise<SlowServer> {
  const accepted = new Map<string, number>()
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const ids: string[] = (JSON.parse(Buffer.concat(chunks).toString('utf8')).batch ?? []).map((m: any) => m.messageId)
      setTimeout(
        () => {
          for (const id of ids) accepted.set(id, (accepted.get(id) ?? 0) + 1)
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
        },
        ids.includes(lastId) ? 300 : 0,
      )
    })
  })
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`
  return { url, accepted, close: () => new Promise((resolve) => (s.closeAllConnections(), s.close(() => resolve()))) }
}

describe('more messages than the memory holds, the service up', () => {
  it('flush() resolves once every message tracked before it has its outcome, those read back from disk too', async () => {
    server = await slowLast('f499')
    const analytics = client(tempDir(), 20)
    const outcomes = new Outcomes()
    for (let i = 0; i < 500; i++) analytics.track(trackMessage(`f${i}`), outcomes.callback(`f${i}`))
    expect(analytics.stats().spool?.onDiskOnly).toBe(480)

    expect(await analytics.flush()).toEqual({ waiting: 0 })
    expect(outcomes.settled).toBe(500)
    expect(server.accepted.size).toBe(500)
    await analytics.closeAndFlush()
  })

  it('closeAndFlush() resolves once every message has its outcome, and leaves the spool empty', async () => {
    server = await slowLast('c499')
    const dir = tempDir()
    const analytics = client(dir, 20)
    const outcomes = new Outcomes()
    for (let i = 0; i < 500; i++) analytics.track(trackMessage(`c${i}`), outcomes.callback(`c${i}`))

    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(outcomes.settled).toBe(500)
    expect(analytics.stats()).toMatchObject({ sent: 500, inFlight: 0, queued: 0 })
    expect(segmentFiles(dir)).toEqual([])
  })

  it('a replay larger than maxQueueSize: closeAndFlush() right after the constructor sends all of it before it resolves', async () => {
    server = await slowLast('r5999')
    const dir = tempDir()
    await deadPart(
      dir,
      { '000001.log': segment(...Array.from({ length: 6_000 }, (_, i) => frame(wireMessage(`r${i}`)))) },
      { key: 'bound-key', host: server.url },
    )
    const replays: ReplayInfo[] = []
    const flushes: FlushInfo[] = []
    const analytics = client(dir, 4_000)
      .on('replay', (info) => replays.push(info))
      .on('flush', (info) => flushes.push(info))

    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: 6_000, torn: 0 }])
    expect(flushes.reduce((n, f) => n + (f.replayed ?? 0), 0)).toBe(6_000)
    expect(analytics.stats().spool).toMatchObject({ replayed: 6_000, onDiskOnly: 0 })
    expect(server.accepted.size).toBe(6_000)
    expect(segmentFiles(dir)).toEqual([])
  })
})
