import * as fs from 'node:fs'
import * as path from 'node:path'
import { Analytics, SpoolError, type ReplayInfo } from '../../src'
import { SPOOL_FS } from '../../src/config/spool-option'
import type { SpoolFs } from '../../src/durability/spool/files'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { deadPart, frame, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 29, finding 9: "A full disk strands the previous client's records": the next client on a
// full disk could not make its own part, so it took nothing over, and its flush() said
// { waiting: 0 } while 372 records waited on disk. Taking over is a rename: it needs no room.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

function enospc(call: string): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${call} (simulated)`), { code: 'ENOSPC', syscall: call })
}

/** node:fs on a full disk: nothing new can be made or written; reads, renames, deletes and utimes work. */
function fullDisk(): SpoolFs {
  const { O_CREAT, O_WRONLY, O_RDWR } = fs.constants
  return {
    ...fs,
    mkdirSync: ((p: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
      if (fs.existsSync(p)) return fs.mkdirSync(p, options)
      throw enospc('mkdir')
    }) as typeof fs.mkdirSync,
    openSync: ((p: fs.PathLike, flags: number, mode?: number) => {
      if (typeof flags === 'number' && (flags & (O_CREAT | O_WRONLY | O_RDWR)) !== 0) throw enospc('open')
      return fs.openSync(p, flags, mode)
    }) as typeof fs.openSync,
    writeSync: () => {
      throw enospc('write')
    },
  }
}

const KEY = 'full-key'

describe('a full disk, and a gone client left records', () => {
  it('the next client takes them over without room (a rename), sends every one, and its messages go out from memory', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const ids = Array.from({ length: 372 }, (_, i) => `left${i}`)
    await deadPart(dir, { '000001.log': segment(...ids.map((id) => frame(wireMessage(id)))) }, { key: KEY, host: server.url })
    const errors: Error[] = []
    const replays: ReplayInfo[] = []
    const analytics = keep(new Analytics(KEY, { host: server.url, spool: { dir, [SPOOL_FS]: fullDisk() } as never }))
      .on('error', (err) => errors.push(err))
      .on('replay', (info) => replays.push(info))
    const outcomes = new Outcomes()
    for (let i = 0; i < 5; i++) analytics.track(trackMessage(`new${i}`), outcomes.callback(`new${i}`))

    expect(await analytics.flush()).toEqual({ waiting: 0 })
    expect(replays).toEqual([{ count: 372, torn: 0 }])
    for (const id of ids) expect(server.accepted.get(id)).toBe(1)
    expect(outcomes.errorNames()).toEqual({})
    for (let i = 0; i < 5; i++) expect(server.accepted.get(`new${i}`)).toBe(1)
    expect(analytics.stats().spool).toMatchObject({ available: false, onDiskOnly: 0, replayed: 372 })
    expect(errors.length).toBe(1)
    expect(errors[0]).toBeInstanceOf(SpoolError)
    expect(errors[0]).toMatchObject({ code: 'ENOSPC' })

    await analytics.closeAndFlush()
    // Every record had its outcome: the part it took over is gone, nothing else is left.
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('a part claimed so (its owner file still names the dead pid, its name the live one) is not taken from its live holder', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const dead = await deadPart(dir, { '000001.log': segment(frame(wireMessage('held0'))) }, { key: KEY, host: server.url })
    // What claimAsPart leaves when the disk takes no new owner file; the holder is a live process of another pid.
    const held = path.join(dir, `part-${process.ppid}-abcdabcd-claimed`)
    fs.renameSync(dead, held)
    const replays: ReplayInfo[] = []
    await keep(new Analytics(KEY, { host: server.url, spool: { dir } }))
      .on('replay', (info) => replays.push(info))
      .closeAndFlush()
    expect(replays).toEqual([])
    expect(server.accepted.size).toBe(0)
    expect(fs.readdirSync(held).sort()).toEqual(['000001.log', 'owner.json'])
  })
})
