import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { PassThrough } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import { openInput, readBlocking } from '../../src/import/input'
import { readLines } from '../../src/import/line-reader'
import type { SourceItem } from '../../src/core/import-source'

// A plain file is read with blocking reads into one reused buffer: the line reader must give the
// same lines as from a stream's fresh chunks, wherever the reads cut the lines.

let dir: string
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'eventrail-input-'))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function linesOf(chunks: AsyncIterable<Uint8Array>): Promise<SourceItem[]> {
  const out: SourceItem[] = []
  for await (const items of readLines(chunks)) out.push(...items)
  return out
}

const summary = (items: SourceItem[]): unknown[] =>
  items.map((i) => [i.position, i.source === null ? null : String(i.source), i.bytes, i.textBytes, i.error?.message])

describe('readBlocking: a plain file read into one buffer', () => {
  it('gives the lines a stream gives: lines longer than a read, multi-byte characters cut by a read, a BOM, CRLF, blank lines, a last line without newline', async () => {
    const long = 'é東🚀'.repeat(60_000) // ~540 KB: spans nine reads
    const rows = Array.from({ length: 4000 }, (_, i) =>
      i % 500 === 7 ? `{"i":${i},"s":"${long.slice(0, i * 40)}"}` : `{"i":${i},"s":"東京 ✓"}`,
    )
    const content = '\ufeff{"first":1}\r\n\n' + rows.join('\n') + `\n  \n{"last":"${long}"}`
    const file = join(dir, 'lines.jsonl')
    writeFileSync(file, content)
    const fromStream = await linesOf(createReadStream(file, { highWaterMark: 64 * 1024 }))
    const input = readBlocking(file, Buffer.byteLength(content))
    const blocking = await linesOf(input.chunks)
    expect(summary(blocking)).toEqual(summary(fromStream))
    expect(blocking).toHaveLength(4004)
    expect(blocking[0].source).toBe('{"first":1}')
    expect(blocking[1].source).toBeNull()
    expect(blocking[4003].source).toBe(`{"last":"${long}"}`)
    expect(input.bytesRead()).toBe(Buffer.byteLength(content))
  })

  it('is what openInput gives for a plain file, with its size; it counts what was read and ends once closed', async () => {
    const file = join(dir, 'count.jsonl')
    writeFileSync(file, '{"a":1}\n'.repeat(100_000))
    const input = await openInput(file, process.stdin)
    expect(input.size).toBe(800_000)
    const iterator = input.chunks[Symbol.asyncIterator]()
    const first = await iterator.next()
    expect(first.done).toBe(false)
    expect(input.bytesRead()).toBe((first.value as Uint8Array).length)
    input.close()
    expect((await iterator.next()).done).toBe(true)
    expect(input.bytesRead()).toBe(64 * 1024)
  })

  it('lets the event loop turn between reads: it is not held for the whole file', async () => {
    const file = join(dir, 'many.jsonl')
    writeFileSync(file, '{"a":1}\n'.repeat(200_000)) // 25 reads
    // A turn of the event loop counts one; it goes on while the file is read.
    let turns = 0
    let isReading = true
    const turn = (): void => {
      turns += 1
      if (isReading) setImmediate(turn)
    }
    setImmediate(turn)
    const input = readBlocking(file, 1_600_000)
    let chunks = 0
    for await (const chunk of input.chunks) chunks += chunk.length > 0 ? 1 : 0
    isReading = false
    expect(chunks).toBe(25)
    expect(turns).toBeGreaterThanOrEqual(20)
  })
})

describe('openInput: standard input', () => {
  it.each([
    ['plain', (text: string): Buffer => Buffer.from(text)],
    ['gzip', (text: string): Buffer => gzipSync(text)],
  ])('loses nothing that arrived before the reading started (%s), and counts the bytes read', async (_what, encode) => {
    const text = Array.from({ length: 2000 }, (_, i) => `{"i":${i}}`).join('\n') + '\n'
    const bytes = encode(text)
    const stdin = new PassThrough()
    const input = await openInput('-', stdin)
    stdin.end(bytes)
    // The command awaits other things (the checkpoint, the report, loading the transport) first.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const lines = await linesOf(input.chunks)
    expect(lines).toHaveLength(2000)
    expect(lines[1999].source).toBe('{"i":1999}')
    expect(input.bytesRead()).toBe(bytes.length)
    expect(input.size).toBeUndefined()
  })
})
