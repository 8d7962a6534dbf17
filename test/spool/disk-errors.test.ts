import * as fs from 'node:fs'
import * as path from 'node:path'
import { Analytics, SpoolError, type AnalyticsOptions } from '../../src'
import { SPOOL_FS } from '../../src/config/spool-option'
import type { SpoolFs } from '../../src/durability/spool/files'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { readSegment, segmentFiles, spoolTestFile } from './helpers'

// Issue 22: "A full or read-only disk never crashes the host: the client reports it and goes on
// in memory." The disk is the spool's SpoolFs stand-in (SPOOL_FS, tests only): node:fs whose
// calls fail with the error a full or read-only disk gives.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

function fsError(code: string, call: string): Error {
  return Object.assign(new Error(`${code}: simulated, ${call}`), { code, syscall: call })
}

/** node:fs on a disk with `room` bytes left: a write past it is cut short, the next one fails with ENOSPC. */
function diskWithRoom(room: number, freed = { bytes: 0 }): SpoolFs {
  let written = 0
  const writeSync = (fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number): number => {
    const left = room + freed.bytes - written
    if (left <= 0) throw fsError('ENOSPC', 'write')
    const n = fs.writeSync(fd, buffer, offset ?? 0, Math.min(length ?? buffer.byteLength, left))
    written += n
    return n
  }
  return { ...fs, writeSync: writeSync as typeof fs.writeSync }
}

/** node:fs on a read-only disk: nothing can be made or opened for writing. */
function readOnlyDisk(): SpoolFs {
  return {
    ...fs,
    mkdirSync: () => {
      throw fsError('EROFS', 'mkdir')
    },
    openSync: () => {
      throw fsError('EROFS', 'open')
    },
  }
}

function spooled(dir: string, disk: SpoolFs, extra: AnalyticsOptions = {}): Analytics {
  return keep(new Analytics('disk-key', { host: server.url, spool: { dir, [SPOOL_FS]: disk } as never, ...extra }))
}

describe('a disk that fills up while messages are tracked', () => {
  it('track() never throws; one SpoolError ENOSPC; every message is delivered from memory; no torn record is left', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const errors: Error[] = []
    const analytics = spooled(dir, diskWithRoom(2_000)).on('error', (err) => errors.push(err))
    const outcomes = new Outcomes()
    for (let i = 0; i < 100; i++) expect(() => analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))).not.toThrow()

    expect(analytics.stats().spool?.available).toBe(false)
    // The record the disk cut short was cut off: the segment holds whole records, the first ones.
    const [log] = segmentFiles(dir)
    const { messages, rest } = readSegment(path.join(dir, log))
    expect(rest).toBe(0)
    expect(messages.length).toBeGreaterThan(0)
    expect(messages.map((m) => m.messageId)).toEqual(Array.from({ length: messages.length }, (_, i) => `m${i}`))

    await analytics.flush()
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 100; i++) expect(server.accepted.get(`m${i}`)).toBe(1)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(SpoolError)
    expect(errors[0]).toMatchObject({ name: 'SpoolError', code: 'ENOSPC' })
    expect(errors[0].message).toMatch(/kept in memory/)
    expect(analytics.stats()).toMatchObject({ sent: 100, failed: 0, dropped: 0 })

    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    expect(segmentFiles(dir)).toEqual([])
  })

  it('errorHandler hears the SpoolError once too, and nothing escapes without one', async () => {
    server = await startFaultServer()
    const handled: Error[] = []
    const analytics = spooled(tempDir(), diskWithRoom(1_000), { errorHandler: (err) => handled.push(err) })
    for (let i = 0; i < 50; i++) analytics.track(trackMessage(`h${i}`))
    await analytics.closeAndFlush()
    expect(handled.map((e) => [e.name, (e as SpoolError).code])).toEqual([['SpoolError', 'ENOSPC']])
    expect(server.accepted.size).toBe(50)

    const quiet = spooled(tempDir(), diskWithRoom(1_000))
    for (let i = 0; i < 50; i++) quiet.track(trackMessage(`q${i}`))
    await expect(quiet.closeAndFlush()).resolves.toEqual({ waiting: 0 })
    expect(server.accepted.size).toBe(100)
  })

  it('writes records again once the disk has room (it tries again every 30 s)', async () => {
    server = await startFaultServer()
    // The spool's clock is jest's, running as the real one does until the test moves it 30 s on
    // (the retry is what is checked here, not the wait); I/O and promises run as always.
    jest.useFakeTimers({ advanceTimers: true, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] })
    try {
      const dir = tempDir()
      const freed = { bytes: 0 }
      const analytics = spooled(dir, diskWithRoom(1_000, freed), { errorHandler: () => undefined })
      for (let i = 0; i < 20; i++) analytics.track(trackMessage(`f${i}`))
      expect(analytics.stats().spool?.available).toBe(false)
      await analytics.flush()
      freed.bytes = 1024 * 1024
      jest.advanceTimersByTime(25_000)
      expect(analytics.stats().spool?.available).toBe(false)
      jest.advanceTimersByTime(6_000)
      await until(() => analytics.stats().spool?.available === true, 10_000, 'the spool to take writes again')
      analytics.track(trackMessage('after'))
      const written = segmentFiles(dir).flatMap((log) => readSegment(path.join(dir, log)).messages.map((m) => m.messageId))
      expect(written).toContain('after')
      await analytics.closeAndFlush()
      expect(server.accepted.size).toBe(21)
      expect(segmentFiles(dir)).toEqual([])
    } finally {
      jest.useRealTimers()
    }
  })
})

describe('a read-only disk from the start', () => {
  it('the client is made, reports EROFS to errorHandler, says it is unavailable, and delivers from memory', async () => {
    server = await startFaultServer()
    const dir = path.join(tempDir(), 'spool')
    const handled: Error[] = []
    let analytics: Analytics | undefined
    expect(() => (analytics = spooled(dir, readOnlyDisk(), { errorHandler: (err) => handled.push(err) }))).not.toThrow()
    const a = analytics as Analytics
    const outcomes = new Outcomes()
    for (let i = 0; i < 30; i++) expect(() => a.track(trackMessage(`ro${i}`), outcomes.callback(`ro${i}`))).not.toThrow()
    expect(a.stats().spool).toMatchObject({ available: false, part: undefined })

    await a.closeAndFlush()
    expect(outcomes.errorNames()).toEqual({})
    expect(server.accepted.size).toBe(30)
    expect(handled).toHaveLength(1)
    expect(handled[0]).toMatchObject({ name: 'SpoolError', code: 'EROFS' })
    expect(fs.existsSync(dir)).toBe(false)
  })

  it("on('error') listeners added right after the constructor hear the EROFS SpoolError, as they hear a replay", async () => {
    server = await startFaultServer()
    const errors: Error[] = []
    const analytics = spooled(path.join(tempDir(), 'spool'), readOnlyDisk()).on('error', (err) => errors.push(err))
    analytics.track(trackMessage('e0'))
    await analytics.closeAndFlush()
    expect(server.accepted.size).toBe(1)
    expect(errors.map((e) => [e.name, (e as SpoolError).code])).toEqual([['SpoolError', 'EROFS']])
  })
})
