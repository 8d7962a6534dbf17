import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { Analytics, type ReplayInfo } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { deadPart, deadPid, filesUnder, frame, ownerJson, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 22: "Files are created without following links planted at their names." The names a
// client opens that someone else could plant are those of a dead client's part it takes over (its
// own part has a fresh random name and is made with mkdir): its segments and ack files. A link
// there must be neither read through, written through, nor have its target deleted.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

/** A file outside the spool directory, with its bytes, to check it is left as it was. */
function victim(dir: string, name: string, bytes: Buffer): { path: string; bytes: Buffer } {
  const file = path.join(dir, name)
  writeFileSync(file, bytes)
  return { path: file, bytes }
}

function expectUntouched(file: { path: string; bytes: Buffer }): void {
  expect(existsSync(file.path)).toBe(true)
  expect(readFileSync(file.path).equals(file.bytes)).toBe(true)
}

async function replay(dir: string): Promise<ReplayInfo[]> {
  const replays: ReplayInfo[] = []
  const analytics = keep(new Analytics('link-key', { host: server.url, spool: { dir } })).on('replay', (info) => replays.push(info))
  expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
  return replays
}

describe('links planted in a part that is taken over', () => {
  it('an ack file that is a link: not read through, not written through, its target not deleted', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const outside = tempDir()
    // Read through, this would say that record 0 had its outcome.
    const target = victim(outside, 'precious.bin', Buffer.from([0, 0, 0, 0]))
    // ~30 KB records, 20 of them: more than one 500 KB request, so an ack is written before the segment goes.
    const pad = 'p'.repeat(30_000)
    const records = Array.from({ length: 20 }, (_, i) => frame({ ...wireMessage(`l${i}`), properties: { id: `l${i}`, pad } }))
    const part = await deadPart(dir, { '000001.log': segment(...records) }, { key: 'link-key', host: server.url })
    symlinkSync(target.path, path.join(part, '000001.ack'))

    const replays = await replay(dir)
    expect(replays).toEqual([{ count: 20, torn: 0 }])
    expect(server.requests.length).toBeGreaterThan(1)
    for (let i = 0; i < 20; i++) expect(server.accepted.get(`l${i}`)).toBe(1)
    expectUntouched(target)
    expect(filesUnder(dir)).toEqual([])
  })

  it('a segment that is a link to a segment outside: not read, not sent, its target not deleted', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const outside = tempDir()
    const target = victim(outside, 'elsewhere.log', segment(frame(wireMessage('secret0')), frame(wireMessage('secret1'))))
    const part = await deadPart(dir, { '000001.log': segment(frame(wireMessage('own0'))) }, { key: 'link-key', host: server.url })
    symlinkSync(target.path, path.join(part, '000002.log'))

    const replays = await replay(dir)
    expect(replays).toEqual([{ count: 1, torn: 0 }])
    expect([...server.accepted.keys()]).toEqual(['own0'])
    expectUntouched(target)
  })

  it('a part that is a link to a directory outside: not taken over, nothing in it read or deleted', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const outside = path.join(tempDir(), 'part-like')
    mkdirSync(outside)
    const pid = await deadPid()
    const owner = victim(outside, 'owner.json', Buffer.from(ownerJson(pid, { key: 'link-key', host: server.url })))
    const log = victim(outside, '000001.log', segment(frame(wireMessage('secret0'))))
    symlinkSync(outside, path.join(dir, `part-${pid}-0badc0de`))

    const replays = await replay(dir)
    expect(replays).toEqual([])
    expect(server.accepted.size).toBe(0)
    expectUntouched(owner)
    expectUntouched(log)
    expect(filesUnder(outside)).toEqual(['000001.log', 'owner.json'])
  })
})
