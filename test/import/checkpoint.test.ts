import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { CheckpointWriter, loadCheckpoint, NotACheckpointError, probeCheckpointPath } from '../../src/import/checkpoint'
import { CheckpointMismatchError, ContentTrail, MAX_KEPT_BYTES, TAIL_BYTES, type ContentMark } from '../../src/import/content-mark'
import { readLines } from '../../src/import/line-reader'

// What a checkpoint records of its input, and how it is written (issue 21: 5 and 6).

const floorAt = (value: number, isBlocked = false) => ({ value, isBlocked })

// Reads `text` cut into chunks of `size` bytes through the line reader, with a trail; returns the trail.
async function readThrough(text: Buffer, size: number, trail: ContentTrail, skipThrough = 0): Promise<number> {
  let items = 0
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < text.length; i += size) yield text.subarray(i, i + size)
  }
  for await (const batch of readLines(chunks(), skipThrough, { trail })) items += batch.length
  return items
}

const content = (count: number, tag = 'E'): Buffer =>
  Buffer.from(Array.from({ length: count }, (_, i) => JSON.stringify({ type: 'track', userId: `u${i}`, event: tag })).join('\n') + '\n')

describe('ContentTrail: what identifies the input up to a line', () => {
  it('gives the same mark for a line however the input was cut into chunks', async () => {
    const text = content(5000)
    const marks: (ContentMark | undefined)[][] = []
    for (const size of [7, 4096, 65_536, text.length]) {
      const trail = new ContentTrail(floorAt(0))
      await readThrough(text, size, trail)
      marks.push([trail.mark(0), trail.mark(1), trail.mark(2500), trail.mark(5000)])
    }
    for (const other of marks.slice(1)) expect(other).toEqual(marks[0])
    const [zero, first, , last] = marks[0]
    expect(zero).toMatchObject({ offset: 0, head: { bytes: 0 }, tail: { bytes: 0 } })
    expect(first?.offset).toBe(text.indexOf(0x0a))
    expect(last).toMatchObject({ offset: text.length - 1, tail: { bytes: TAIL_BYTES } })
  })

  it('checks a resumed input as it passes the line: the same content (with more after it) passes, another throws before any later line', async () => {
    const original = content(3000)
    const trail = new ContentTrail(floorAt(0))
    await readThrough(original, 65_536, trail)
    const expected = { line: 2000, mark: trail.mark(2000)! }

    const grown = Buffer.concat([original, content(100, 'More')])
    expect(await readThrough(grown, 1000, new ContentTrail(floorAt(2000), expected), 2000)).toBe(1100)

    const edited = Buffer.from(original)
    edited[100] = edited[100] === 0x31 ? 0x32 : 0x31 // a character of line 2 or so: the head differs
    await expect(readThrough(edited, 4096, new ContentTrail(floorAt(2000), expected), 2000)).rejects.toThrow(
      new CheckpointMismatchError(`its first ${(65_536).toLocaleString('en-US')} bytes differ`),
    )
    const shorter = content(1500)
    await expect(readThrough(shorter, 4096, new ContentTrail(floorAt(2000), expected), 2000)).rejects.toThrow(
      'it has 1,500 lines, and the checkpoint is after line 2,000',
    )
    const moved = Buffer.concat([Buffer.from('{"a":1}\n'), original])
    await expect(readThrough(moved, 4096, new ContentTrail(floorAt(2000), expected), 2000)).rejects.toThrow(/its line 2,000 ends at byte/)
  })

  it('keeps only what a mark from the floor on needs: a long line is not kept whole, a blocked watermark keeps nothing more', async () => {
    const long = JSON.stringify({ type: 'track', userId: 'u', event: 'E', properties: { s: 'x'.repeat(3_000_000) } })
    const text = Buffer.concat([content(10), Buffer.from(long + '\n'), content(10)])
    const floor = { value: 0, isBlocked: false }
    const trail = new ContentTrail(floor)
    let most = 0
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < text.length; i += 65_536) {
        floor.value = Math.min(10, floor.value + 1)
        most = Math.max(most, trail.keptBytes)
        yield text.subarray(i, i + 65_536)
      }
    }
    for await (const batch of readLines(chunks(), 0, { trail })) void batch
    expect(most).toBeLessThan(4 * 65_536)
    // The long line's end is known, and the bytes before it.
    expect(trail.mark(11)).toMatchObject({ tail: { bytes: TAIL_BYTES } })

    const blocked = new ContentTrail(floorAt(5, true))
    await readThrough(content(100_000), 65_536, blocked)
    expect(blocked.keptBytes).toBeLessThan(3 * 65_536)
    expect(blocked.mark(5)).toBeDefined()
    expect(MAX_KEPT_BYTES).toBe(64 * 1024 * 1024)
  })
})

describe('CheckpointWriter: written atomically, through a new file created exclusively', () => {
  let dir: string
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'eventrail-checkpoint-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const mark: ContentMark = { offset: 10, head: { bytes: 10, sha256: 'h' }, tail: { bytes: 10, sha256: 't' } }

  it('never writes through a file or a link already under the temporary name: it takes another name', async () => {
    const checkpoint = path.join(dir, 'export.checkpoint')
    const victim = path.join(dir, 'victim.txt')
    writeFileSync(victim, 'mine\n')
    symlinkSync(victim, `${checkpoint}.planted.tmp`)
    writeFileSync(`${checkpoint}.taken.tmp`, 'someone else’s\n')
    const names = ['planted', 'taken', 'fresh']
    const writer = new CheckpointWriter(
      checkpoint,
      () => ({ file: '/x', content: mark }),
      () => names.shift()!,
    )
    await writer.write(7)
    expect(readFileSync(victim, 'utf8')).toBe('mine\n')
    expect(readFileSync(`${checkpoint}.taken.tmp`, 'utf8')).toBe('someone else’s\n')
    expect(await loadCheckpoint(checkpoint)).toMatchObject({ line: 7, file: '/x', content: mark })
    expect(readdirSync(dir).sort()).toEqual([
      'export.checkpoint',
      'export.checkpoint.planted.tmp',
      'export.checkpoint.taken.tmp',
      'victim.txt',
    ])
  })

  it('writes nothing while the line is not identified yet, and keeps why a write failed', async () => {
    const checkpoint = path.join(dir, 'export.checkpoint')
    let known = false
    const writer = new CheckpointWriter(checkpoint, () => (known ? { file: '/x', content: mark } : undefined))
    await writer.write(3)
    expect(existsSync(checkpoint)).toBe(false)
    known = true
    await writer.write(3, true)
    expect(writer.writtenLine).toBe(3)
    expect(await loadCheckpoint(checkpoint)).toMatchObject({ line: 3, complete: true })
    rmSync(dir, { recursive: true })
    await expect(writer.write(4)).rejects.toThrow(/ENOENT/)
    expect(writer.error?.message).toMatch(/ENOENT/)
    expect(writer.writtenLine).toBe(3)
  })

  it('refuses to take a file that is not a checkpoint for one, and checks the place before an import', async () => {
    const other = path.join(dir, 'notes.txt')
    writeFileSync(other, 'my notes\n')
    await expect(loadCheckpoint(other)).rejects.toThrow(NotACheckpointError)
    await expect(probeCheckpointPath(dir)).rejects.toThrow('is a directory')
    await expect(probeCheckpointPath(path.join(other, 'x.checkpoint'))).rejects.toThrow(/ENOTDIR/)
    await probeCheckpointPath(path.join(dir, 'fine.checkpoint'))
    expect(readdirSync(dir)).toEqual(['notes.txt'])
  })
})
