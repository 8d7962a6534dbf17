import { parseImportArgs } from '../../src/import/args'
import { formatHexAsUuid, loadLineIdHasher } from '../../src/import/message-id'
import { readLines } from '../../src/import/line-reader'
import { keepMemoryNear, loadGc } from '../../src/import/memory-budget'
import { rateDelayMs, resolveImportOptions } from '../../src/import/pace'
import { createDisplay } from '../../src/import/display'
import { inputPosition, progressLine, summaryTable } from '../../src/import/render'
import { decodeItem } from '../../src/import/to-message'
import { Watermark } from '../../src/import/watermark'
import type { SourceItem } from '../../src/import/engine'

const ids = { hashLine: (line: string, position: number) => `id-${position}-${line.length}` }

async function lines(chunks: string[], skip = 0): Promise<SourceItem[]> {
  const out: SourceItem[] = []
  for await (const batch of readLines(
    (async function* () {
      for (const c of chunks) yield Buffer.from(c)
    })(),
    skip,
  ))
    out.push(...batch)
  return out
}
const text = (item: SourceItem): string | null => (item.source === null ? null : Buffer.from(item.source as Uint8Array).toString())

describe('Watermark: the last position up to which every item has its outcome', () => {
  it('moves over a run of closed items only, whatever order they close in', () => {
    const w = new Watermark(0)
    for (const p of [1, 2, 3, 4]) w.open(p)
    w.close(3)
    expect(w.value).toBe(0)
    w.close(1)
    expect(w.value).toBe(1)
    w.close(2)
    expect(w.value).toBe(3)
    w.pass(5) // an item with its outcome at once waits behind the open item 4
    expect(w.value).toBe(3)
    w.close(4)
    expect(w.value).toBe(5)
  })

  it('stops for good before a blocking (failed) item', () => {
    const w = new Watermark(10)
    for (const p of [11, 12, 13]) w.open(p)
    w.close(12, true)
    w.close(11)
    w.close(13)
    w.pass(14)
    expect(w.value).toBe(11)
    expect(w.isBlocked).toBe(true)
  })
})

describe('message ids derived from a line', () => {
  it('are UUID-shaped (version 8, variant 10) and the same for the same line and position only', async () => {
    const hash = await loadLineIdHasher()
    const id = hash('{"type":"track"}', 7)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(hash('{"type":"track"}', 7)).toBe(id)
    expect(hash('{"type":"track"}', 8)).not.toBe(id)
    expect(hash('{"type":"track" }', 7)).not.toBe(id)
    expect(formatHexAsUuid('f'.repeat(64))).toBe('ffffffff-ffff-8fff-bfff-ffffffffffff')
    // The position goes into the last 48 bits: one hash, a different id at every position.
    expect(formatHexAsUuid('f'.repeat(64), 1)).toBe('ffffffff-ffff-8fff-bfff-fffffffffffe')
    expect(formatHexAsUuid('0'.repeat(64), 2 ** 24 + 5)).toBe('00000000-0000-8000-8000-000001000005')
    expect(formatHexAsUuid('0'.repeat(64), 2 ** 48 - 1)).toBe('00000000-0000-8000-8000-ffffffffffff')
  })
})

describe('decodeItem: an item as a message', () => {
  it('parses a line, keeps its type and gives it a messageId only when it has none', () => {
    const decoded = decodeItem(Buffer.from('{"type":"track","userId":"u1","event":"E"}'), 3, ids)
    const message = { type: 'track', userId: 'u1', event: 'E', messageId: 'id-3-42' }
    // The line's own text goes with it: the client may send it as written (see prepareParsedLine).
    expect(decoded).toEqual({
      type: 'track',
      message,
      line: { text: '{"type":"track","userId":"u1","event":"E"}', value: message, addedId: 'id-3-42', bytes: 42 },
    })
    expect(decodeItem('{"type":"track","userId":"u1","event":"E","messageId":null}', 3, ids).line).toBeUndefined()
    expect(decodeItem('{"type":"identify","userId":"u1","messageId":"m-1"}', 4, ids).message?.messageId).toBe('m-1')
  })

  it("imports the message of a record written by eventrail dev --out, without changing the caller's object", () => {
    const record = {
      id: 1,
      receivedAt: '2026-01-01T00:00:00.000Z',
      type: 'page',
      verdict: 'accepted',
      message: { anonymousId: 'a1', name: 'Home' },
    }
    const decoded = decodeItem(record, 1, { ...ids, custom: () => 'custom-id' })
    expect(decoded).toEqual({ type: 'page', message: { anonymousId: 'a1', name: 'Home', messageId: 'custom-id' } })
    expect(record.message).toEqual({ anonymousId: 'a1', name: 'Home' })
  })

  it.each([
    ['{"type":"track"', 'import: "line" is not valid JSON'],
    ['[1,2]', 'import: "line" must hold a JSON object'],
    ['{"type":"purchase","userId":"u1"}', 'import: "type" is required and must be one of identify, track, page, screen, group, alias'],
    ['{"userId":"u1"}', 'import: "type" is required'],
  ])('refuses %s: %s', (line, reason) => {
    expect(decodeItem(line, 1, ids).error?.message).toContain(reason)
  })
})

describe('readLines: numbered lines from a byte stream', () => {
  it('decodes a line the same wherever the chunks were cut (its id depends on its text)', async () => {
    const bytes = Buffer.from('{"a":"é – 東京 🚀 and a U+FFFD of its own: \ufffd"}\n')
    const whole: SourceItem[] = []
    for await (const batch of readLines(
      (async function* () {
        yield bytes
      })(),
    ))
      whole.push(...batch)
    for (let cut = 1; cut < bytes.length - 1; cut++) {
      const split: SourceItem[] = []
      for await (const batch of readLines(
        (async function* () {
          yield bytes.subarray(0, cut)
          yield bytes.subarray(cut)
        })(),
      ))
        split.push(...batch)
      expect(split[0].source).toBe(whole[0].source)
    }
    expect(whole[0].source).toBe(bytes.subarray(0, -1).toString('utf8'))
  })

  it('splits lines across chunks, strips \\r, marks blank lines and numbers every line', async () => {
    const items = await lines(['{"a":1}\r\n{"b"', ':2}\n\n   \n{"c":3}'])
    expect(items.map((i) => [i.position, text(i)])).toEqual([
      [1, '{"a":1}'],
      [2, '{"b":2}'],
      [3, null],
      [4, null],
      [5, '{"c":3}'],
    ])
    expect(items[0].bytes).toBe(9)
  })

  it('skips the lines up to a checkpoint but keeps numbering them', async () => {
    const items = await lines(['1\n2\n3\n4\n'], 2)
    expect(items.map((i) => [i.position, text(i)])).toEqual([
      [3, '3'],
      [4, '4'],
    ])
  })

  it('refuses a line over 1 MiB without holding it, and goes on with the next line', async () => {
    const long = 'x'.repeat(600 * 1024)
    const items = await lines([long, long, long + '\n{"ok":1}\n'])
    expect(items).toHaveLength(2)
    expect(items[0].error?.message).toMatch(/^import: "line" is 1843200 bytes, longer than the 1048576 bytes a line may have/)
    expect(text(items[1])).toBe('{"ok":1}')
  })
})

describe('readLines: what it knows of a line besides its text', () => {
  async function fromBytes(parts: Buffer[]): Promise<SourceItem[]> {
    const out: SourceItem[] = []
    for await (const batch of readLines(
      (async function* () {
        for (const part of parts) yield part
      })(),
    ))
      out.push(...batch)
    return out
  }

  it('gives the UTF-8 bytes of the text of a line', async () => {
    const items = await fromBytes([Buffer.from('{"a":"plain"}\n{"b":"東京 🚀"}\r\n{"c":"\ufffd"}\n')])
    expect(items[0].textBytes).toBe(Buffer.byteLength(items[0].source as string))
    expect(items[1].textBytes).toBe(Buffer.byteLength('{"b":"東京 🚀"}'))
    expect(items[2].textBytes).toBe(Buffer.byteLength('{"c":"\ufffd"}'))
  })

  it('refuses a line that is not UTF-8 (a Latin-1 export), wherever the chunks were cut, and goes on', async () => {
    // "café" in Latin-1, a 4-byte sequence cut short, lone continuation bytes: each would be U+FFFD.
    for (const bad of [
      [0x63, 0x61, 0x66, 0xe9],
      [0xf0, 0x9f, 0x98],
      [0x80, 0x80, 0x80],
    ]) {
      const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bad), Buffer.from('"}\n{"ok":1}\n')])
      for (let cut = 1; cut < bytes.length; cut += 3) {
        const items = await fromBytes([bytes.subarray(0, cut), bytes.subarray(cut)])
        expect(items).toHaveLength(2)
        expect(items[0].error?.message).toMatch(/^import: "line" is not UTF-8 text \(JSON lines must be UTF-8/)
        expect(items[1].source).toBe('{"ok":1}')
      }
    }
  })

  it('drops a UTF-8 byte order mark at the start, even one split across chunks, and only there', async () => {
    const mark = Buffer.from([0xef, 0xbb, 0xbf])
    const body = Buffer.from('{"a":1}\n{"b":2}\n')
    for (let cut = 0; cut <= 4; cut++) {
      const whole = Buffer.concat([mark, body])
      const items = await fromBytes([whole.subarray(0, cut), whole.subarray(cut)].filter((part) => part.length > 0))
      expect(items.map((i) => [i.position, i.source])).toEqual([
        [1, '{"a":1}'],
        [2, '{"b":2}'],
      ])
    }
    const inside = await fromBytes([Buffer.concat([body, mark, Buffer.from('{"c":3}\n')])])
    expect(inside[2].source).toBe('\ufeff{"c":3}')
    // Two bytes of a mark, and nothing else: not a mark, and not UTF-8 either.
    const [cut] = await fromBytes([Buffer.from([0xef, 0xbb])])
    expect(cut.position).toBe(1)
    expect(cut.error?.message).toMatch(/"line" is not UTF-8 text/)
  })
})

describe('parseImportArgs: the import command line', () => {
  it('reads the options and defaults the checkpoint to FILE.checkpoint', () => {
    const parsed = parseImportArgs([
      'events.jsonl.gz',
      '--write-key',
      'k',
      '--host',
      'http://127.0.0.1:9',
      '--report',
      'r.jsonl',
      '--resume',
      '--rate',
      '500',
      '--strict',
      '--json',
    ])
    expect(parsed).toEqual({
      command: 'import',
      options: expect.objectContaining({
        file: 'events.jsonl.gz',
        writeKey: 'k',
        checkpoint: 'events.jsonl.gz.checkpoint',
        resume: true,
        rate: 500,
        strict: true,
        json: true,
        dryRun: false,
      }),
    })
  })

  it.each([
    [[], 'FILE is required: a JSON-lines file, a .gz file or - for standard input'],
    [['a.jsonl'], "--write-key is required (the source's write key)"],
    [['a.jsonl', '--write-key', 'k', '--rate', 'fast'], '--rate must be a number of messages a second, at least 0.01 (got "fast")'],
    [['a.jsonl', '--write-key', 'k', '--rate', 'Infinity'], '--rate must be a number of messages a second, at least 0.01 (got "Infinity")'],
    [['a.jsonl', '--write-key', 'k', '--max-pending', '1.5'], '--max-pending must be a whole number, from 1 to 500,000 (got "1.5")'],
    [['a.jsonl', '--write-key', 'k', '--max-pending', '600000'], '--max-pending must be a whole number, from 1 to 500,000 (got "600000")'],
    [
      ['a.jsonl', '--write-key', 'k', '--progress-interval', ' 5'],
      '--progress-interval must be a number of seconds, from 0.001 to 86,400 (got " 5")',
    ],
    [['a.jsonl', '--write-key', 'k', '--verdict', 'ok'], '--verdict must be accepted or dropped (got "ok")'],
    [['-', '--write-key', 'k', '--resume'], '--resume with standard input needs --checkpoint FILE'],
  ])('refuses %j: %s', (argv, message) => {
    expect(parseImportArgs(argv)).toEqual({ command: 'error', message })
  })

  it('reads the new flags: --restart, --verdict, --max-requests-per-second, and numbers in any plain notation', () => {
    const parsed = parseImportArgs([
      'a.jsonl',
      '--write-key',
      'k',
      '--restart',
      '--verdict',
      'accepted',
      '--max-requests-per-second',
      '2000',
      '--rate',
      '2.5e3',
      '--progress-interval',
      '.5',
    ])
    expect(parsed).toEqual({
      command: 'import',
      options: expect.objectContaining({
        restart: true,
        resume: false,
        verdict: 'accepted',
        maxRequestsPerSecond: 2000,
        rate: 2500,
        progressInterval: 0.5,
      }),
    })
  })

  it('needs no write key for --dry-run, and names an unknown option', () => {
    expect(parseImportArgs(['a.jsonl', '--dry-run']).command).toBe('import')
    expect((parseImportArgs(['a.jsonl', '--resum']) as { message: string }).message).toContain("'--resum'")
  })
})

describe('import options and pacing', () => {
  it('names an invalid option and its rule', () => {
    expect(() => resolveImportOptions({ maxPending: 0 })).toThrow('importMessages: "maxPending" must be an integer of at least 1')
    expect(() => resolveImportOptions({ rate: -1 })).toThrow('importMessages: "rate" must be a number greater than 0')
    expect(() => resolveImportOptions({ onProgress: 'x' as never })).toThrow('"onProgress" must be a function')
  })

  it('spaces messages so that no more than rate a second are handed over', () => {
    expect(rateDelayMs(1000, 0, 100, 1000)).toBe(0)
    expect(rateDelayMs(1000, 50, 100, 1000)).toBe(500)
    expect(rateDelayMs(1000, 50, 100, 1700)).toBe(0)
  })
})

describe('progress rendering', () => {
  const p = {
    read: 1500,
    sent: 1200,
    refused: 3,
    failed: 0,
    skipped: 0,
    pending: 297,
    bytes: 2_500_000,
    watermark: 1100,
    elapsedMs: 10_000,
    rate: 120.3,
  }

  const at = (fraction: number | undefined, etaSeconds?: number) => ({ bytesRead: 0, size: 1000, fraction, etaSeconds })

  it('shows counts, MB, rate, and how far and how long to go when the size is known', () => {
    expect(progressLine(p, at(0.25, 30))).toBe('read 1,500 · sent 1,200 · refused 3 · failed 0 · 2.5 MB · 120 msg/s · 25% · ETA 0:30')
    expect(progressLine(p, at(0.25))).toBe('read 1,500 · sent 1,200 · refused 3 · failed 0 · 2.5 MB · 120 msg/s · 25% · ETA estimating…')
    expect(progressLine(p, at(undefined))).toBe('read 1,500 · sent 1,200 · refused 3 · failed 0 · 2.5 MB · 120 msg/s')
    expect(progressLine({ ...p, skipped: 4 }, at(1), true)).toBe(
      'read 1,500 · would send 1,200 · refused 3 · failed 0 · skipped 4 · 2.5 MB · 120 msg/s · 100%',
    )
  })

  it('takes the share done from the bytes of the lines that have their outcome, and estimates the time left only once enough is known', () => {
    const bytes = { size: 1000, read: 1000, taken: 1000, skipped: 0, done: 250 }
    // Everything read at once (the reading runs ahead): the share is what is done, not what is read.
    expect(inputPosition(bytes, 10_000)).toEqual({ bytesRead: 1000, size: 1000, fraction: 0.25, etaSeconds: 30 })
    // Too early (under 3 s), or too little done (under 1 %): estimating.
    expect(inputPosition(bytes, 2000).etaSeconds).toBeUndefined()
    expect(inputPosition({ ...bytes, done: 5 }, 10_000).etaSeconds).toBeUndefined()
    // Resumed after 400 bytes: they count as done, but not in the pace of this run.
    expect(inputPosition({ ...bytes, skipped: 400, done: 150 }, 10_000)).toMatchObject({ fraction: 0.55, etaSeconds: 30 })
    // A .gz file: 100 bytes of 400 on disk gave 500 bytes of lines, so about 2,000 in all.
    expect(inputPosition({ size: 400, read: 100, taken: 500, skipped: 0, done: 500 }, 10_000)).toMatchObject({
      fraction: 0.25,
      etaSeconds: 30,
    })
    expect(inputPosition({ ...bytes, size: undefined }, 10_000)).toMatchObject({ fraction: undefined, etaSeconds: undefined })
  })

  it('says when the checkpoint or the report could not be written, and what the skipped lines were', () => {
    const table = summaryTable(
      { ...p, skipped: 2, aborted: false, abandoned: 0 },
      {
        report: 'r.jsonl',
        reportError: 'ENOSPC',
        checkpoint: 'c',
        checkpointLine: 900,
        checkpointError: 'ENOTDIR',
        skippedNote: 'blank lines',
      },
    )
    expect(table).toContain('  refused     3\n')
    expect(table).toContain('  skipped     2  (blank lines)\n')
    expect(table).toContain('  checkpoint  NOT WRITTEN to c: ENOTDIR (the last written is line 900)\n')
    expect(table).toContain('  report      NOT WRITTEN in full to r.jsonl: ENOSPC\n')
  })

  it('ends with a summary table', () => {
    const table = summaryTable({ ...p, aborted: false, abandoned: 0 }, { report: 'r.jsonl', checkpoint: 'c', checkpointLine: 1100 })
    expect(table.split('\n')).toEqual([
      '  read        1,500 lines',
      '  sent        1,200',
      '  refused     3  (see r.jsonl)',
      '  failed      0',
      '  bytes       2.5 MB',
      '  time        10.0 s',
      '  rate        120 messages/s',
      '  checkpoint  line 1,100 (c)',
      '',
    ])
  })
})

describe('createDisplay: how progress is shown', () => {
  const p = { read: 10, sent: 9, refused: 1, failed: 0, skipped: 0, pending: 0, bytes: 1000, watermark: 10, elapsedMs: 1000, rate: 10 }
  const input = () => ({ bytesRead: 5, size: 10, fraction: 0.5, etaSeconds: 1 })

  it('redraws one line in place on a terminal and keeps notices off it', () => {
    const written: string[] = []
    const display = createDisplay({ isTTY: true, write: (t: string) => written.push(t) }, false, 5, input)
    display.show(p)
    display.notice('Interrupted')
    display.show(p)
    expect(written[0]).toBe('\rread 10 · sent 9 · refused 1 · failed 0 · 0.0 MB · 10 msg/s · 50% · ETA 0:01\u001b[K')
    expect(written[1]).toBe('\r\u001b[KInterrupted\n')
    expect(display.intervalMs).toBe(250)
  })

  it('prints JSON events with --json', () => {
    const written: string[] = []
    const display = createDisplay({ isTTY: true, write: (t: string) => written.push(t) }, true, 5, input)
    display.show(p)
    expect(JSON.parse(written[0])).toEqual({ event: 'progress', ...p, inputBytesRead: 5, inputSize: 10, percent: 50, etaSeconds: 1 })
  })
})

describe('keepMemoryNear: the CLI keeps its RSS near a budget', () => {
  it("gets V8's gc at run time, and a collection frees garbage", () => {
    const gc = loadGc()
    expect(typeof gc).toBe('function')
    gc!()
    const before = process.memoryUsage().heapUsed
    // Made and dropped inside a function: nothing refers to it once it returns.
    const makeGarbage = (): number => Array.from({ length: 200_000 }, (_, i) => ({ i, text: `line ${i}` })).length
    expect(makeGarbage()).toBe(200_000)
    const grown = process.memoryUsage().heapUsed
    gc!()
    expect(process.memoryUsage().heapUsed).toBeLessThan(grown - 5_000_000)
    expect(process.memoryUsage().heapUsed).toBeLessThan(before + 5_000_000)
  })

  it('collects while past the budget, at most every 150 ms, not under it, and stops when told', async () => {
    let rss = 200e6
    let collections = 0
    const startMs = Date.now()
    const stop = keepMemoryNear(128e6, { rss: () => rss, collect: () => (collections += 1) })
    await new Promise((resolve) => setTimeout(resolve, 400))
    // However late the timers run on a busy machine: at least one, never two within 150 ms.
    expect(collections).toBeGreaterThanOrEqual(1)
    expect(collections).toBeLessThanOrEqual(Math.floor((Date.now() - startMs) / 150) + 1)
    rss = 100e6
    const under = collections
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(collections).toBe(under)
    rss = 200e6
    stop()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(collections).toBe(under)
  })

  it('does nothing where no gc can be had', () => {
    const stop = keepMemoryNear(1, { collect: undefined })
    expect(typeof stop).toBe('function')
    stop()
  })
})
