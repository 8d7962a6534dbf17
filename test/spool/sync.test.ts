import * as fs from 'node:fs'
import * as path from 'node:path'
import { Analytics, SpoolError, type AnalyticsOptions } from '../../src'
import { SPOOL_FS } from '../../src/config/spool-option'
import type { SpoolFs } from '../../src/durability/spool/files'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { trackMessage } from '../faults/outcomes'
import { readSegment, segmentFiles, spoolTestFile } from './helpers'

// Issue 32, part 1: "sync what a power loss needs". The spool runs on the real disk (node:fs),
// with its calls watched: which directories are fsynced, and how often; and a fdatasync that
// fails once, as a dying disk's does (the records since the last good sync are written again).
// What a power loss then keeps is checked by the crash model (crash.test.ts).

const { keep, tempDir } = spoolTestFile()
let server: FaultServer | undefined
afterEach(async () => {
  await server?.close()
})

/** node:fs whose directory syncs are counted (by path), and whose next `failing` fdatasyncs fail with EIO. */
function watchedDisk(failing = { count: 0 }): { disk: SpoolFs; dirSyncs: string[]; dataSyncs: { ok: number; failed: number } } {
  const dirSyncs: string[] = []
  const dataSyncs = { ok: 0, failed: 0 }
  const dirs = new Map<number, string>()
  const disk = {
    ...fs,
    openSync: ((p: string, flags: number, mode?: number) => {
      const fd = fs.openSync(p, flags, mode)
      if (typeof flags === 'number' && (flags & fs.constants.O_DIRECTORY) !== 0) dirs.set(fd, p)
      return fd
    }) as typeof fs.openSync,
    fsync: ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      const dir = dirs.get(fd)
      if (dir !== undefined) dirSyncs.push(dir)
      fs.fsync(fd, done)
    }) as typeof fs.fsync,
    fdatasync: ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      if (failing.count > 0) {
        failing.count -= 1
        dataSyncs.failed += 1
        return setImmediate(() => done(Object.assign(new Error('EIO: simulated, fdatasync'), { code: 'EIO', syscall: 'fdatasync' })))
      }
      dataSyncs.ok += 1
      fs.fdatasync(fd, done)
    }) as typeof fs.fdatasync,
  }
  return { disk, dirSyncs, dataSyncs }
}

function spooled(dir: string, disk: SpoolFs, extra: AnalyticsOptions = {}): Analytics {
  return keep(new Analytics('sync-key', { host: (server as FaultServer).url, spool: { dir, [SPOOL_FS]: disk } as never, ...extra }))
}

it('directories are synced once per file made, not per message: 2,000 messages, a handful of directory syncs', async () => {
  server = await startFaultServer(() => ({ kind: 'status', status: 503 }))
  const dir = tempDir()
  const { disk, dirSyncs } = watchedDisk()
  const analytics = spooled(dir, disk, { errorHandler: () => undefined, maxRetries: 0 })
  for (let i = 0; i < 2_000; i++) analytics.track(trackMessage(`d${i}`))
  await analytics.flush()
  const part = analytics.stats().spool?.part as string
  // The part's directory (its owner file, its segment) and the spool's (the part made there).
  expect(dirSyncs).toContain(part)
  expect(dirSyncs).toContain(dir)
  expect(dirSyncs.length).toBeLessThanOrEqual(4)
  const before = dirSyncs.length
  for (let i = 0; i < 2_000; i++) analytics.track(trackMessage(`e${i}`))
  await analytics.flush()
  // Records appended to the same segment: no directory changed, none synced.
  expect(dirSyncs.length).toBe(before)
})

it('a failed fdatasync is reported (SpoolError ESYNC), its records are written again to a new segment, and all are delivered once, both copies then deleted', async () => {
  server = await startFaultServer(() => ({ kind: 'status', status: 503 }))
  const dir = tempDir()
  const failing = { count: 0 }
  const { disk, dataSyncs } = watchedDisk(failing)
  const errors: Error[] = []
  const analytics = spooled(dir, disk, { maxRetries: 0 }).on('error', (err) => errors.push(err))
  for (let i = 0; i < 5; i++) analytics.track(trackMessage(`s${i}`))
  await analytics.flush()
  for (let i = 0; i < 5; i++) analytics.track(trackMessage(`u${i}`))
  failing.count = 1
  await analytics.flush()
  await new Promise((resolve) => setImmediate(resolve))

  expect(dataSyncs.failed).toBe(1)
  const sync = errors.filter((e) => SpoolError.is(e) && e.code === 'ESYNC')
  expect(sync).toHaveLength(1)
  expect(sync[0].message).toMatch(/the 5 records written since its last good sync are not taken as safe/)
  // On the disk: the first segment (all ten), and a second one with the five since the good sync.
  const logs = segmentFiles(dir).sort()
  expect(logs).toHaveLength(2)
  const ids = (log: string): string[] => readSegment(path.join(dir, log)).messages.map((m) => m.messageId as string)
  expect(ids(logs[0])).toEqual([...[0, 1, 2, 3, 4].map((i) => `s${i}`), ...[0, 1, 2, 3, 4].map((i) => `u${i}`)])
  expect(ids(logs[1])).toEqual([0, 1, 2, 3, 4].map((i) => `u${i}`))

  // The service is back: each message is delivered once (the copies are never read back here),
  // and with their originals' outcome the copies go too.
  server.decide = () => ({ kind: 'status', status: 200 })
  await analytics.closeAndFlush()
  for (const id of [...[0, 1, 2, 3, 4].map((i) => `s${i}`), ...[0, 1, 2, 3, 4].map((i) => `u${i}`)]) expect(server.accepted.get(id)).toBe(1)
  expect(server.accepted.size).toBe(10)
  expect(segmentFiles(dir)).toEqual([])
})
