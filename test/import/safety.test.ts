import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { gzipSync } from 'node:zlib'
import { Analytics } from '../../src/index'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'
import { assertBuilt, startCli, startPiped, waitFor, type Run } from './run-cli'

// What a user sees of the import's data safety (issue 21: 3, 4, 5, 6, 11, 12) and of finding,
// stopping and resuming it (issue 25: 6): the built bin in a child process, against the local
// collector over real HTTP on 127.0.0.1, with real files.

let collector: Collector
let dir: string

beforeAll(assertBuilt)

beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['import-key'], maxMessages: 100_000 })
  dir = mkdtempSync(path.join(tmpdir(), 'eventrail-import-safety-'))
})

afterEach(async () => {
  await collector.close()
  rmSync(dir, { recursive: true, force: true })
})

const run = (args: string[], stdin?: Buffer | { fd: number }): Promise<Run> => startCli(dir, ['import', ...args], stdin).done
const send = (file: string, ...more: string[]): string[] => [file, '--write-key', 'import-key', '--host', collector.url, ...more]
const trackLine = (i: number, tag = 'Imported'): string =>
  JSON.stringify({ type: 'track', userId: `u${i}`, event: tag, properties: { line: i } })
const lines = (from: number, to: number, tag?: string): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => trackLine(from + i, tag))

function writeLines(name: string, content: string[]): string {
  const file = path.join(dir, name)
  writeFileSync(file, content.join('\n') + '\n')
  return file
}

const receivedLines = (): number[] => collector.messages.map((r) => (r.message.properties as { line: number }).line).sort((a, b) => a - b)
const checkpointOf = (file: string): Record<string, unknown> => JSON.parse(readFileSync(`${file}.checkpoint`, 'utf8'))

describe('an output that names the input is refused, by any name (21/3)', () => {
  const spellings: [string, (file: string) => string][] = [
    ['the same name', () => 'users.jsonl'],
    ['./', () => './users.jsonl'],
    ['.. and back', () => `../${path.basename(dir)}/users.jsonl`],
    ['an absolute path', (file) => file],
    [
      'a symbolic link',
      () => {
        symlinkSync('users.jsonl', path.join(dir, 'link.jsonl'))
        return 'link.jsonl'
      },
    ],
    [
      'a hard link',
      (file) => {
        linkSync(file, path.join(dir, 'hard.jsonl'))
        return 'hard.jsonl'
      },
    ],
  ]

  it.each(spellings)('--report as %s: exit 2 naming the flag and the file, the input untouched, nothing sent', async (_what, spell) => {
    const file = writeLines('users.jsonl', lines(1, 20))
    const before = readFileSync(file)
    const report = spell(file)
    const result = await run(send('users.jsonl', '--report', report))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`eventrail import: --report ${report} is the input file users.jsonl: writing it would destroy`)
    expect(readFileSync(file).equals(before)).toBe(true)
    expect(collector.requests).toHaveLength(0)
  })

  it.each(spellings)('--checkpoint as %s: refused the same way', async (_what, spell) => {
    const file = writeLines('users.jsonl', lines(1, 20))
    const before = readFileSync(file)
    const checkpoint = spell(file)
    const result = await run(send('users.jsonl', '--checkpoint', checkpoint))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--checkpoint ${checkpoint} is the input file users.jsonl`)
    expect(readFileSync(file).equals(before)).toBe(true)
    expect(collector.requests).toHaveLength(0)
  })

  it('standard input redirected from the file (- < users.jsonl) with --report naming it: refused', async () => {
    const file = writeLines('users.jsonl', lines(1, 20))
    const before = readFileSync(file)
    const fd = openSync(file, 'r')
    try {
      const result = await run(send('-', '--report', 'users.jsonl'), { fd })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--report users.jsonl is standard input (redirected from that file)')
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(file).equals(before)).toBe(true)
    expect(collector.requests).toHaveLength(0)
  })

  it('--report and --checkpoint naming one file: refused', async () => {
    writeLines('users.jsonl', lines(1, 5))
    const result = await run(send('users.jsonl', '--report', 'out.jsonl', '--checkpoint', './out.jsonl'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--report out.jsonl and --checkpoint ./out.jsonl are the same file')
  })
})

describe('gzip on standard input imports every line (21/4)', () => {
  const COUNT = 30_000
  let gz: string

  beforeEach(() => {
    gz = path.join(dir, 'export.jsonl.gz')
    writeFileSync(gz, gzipSync(lines(1, COUNT).join('\n') + '\n'))
  })

  const expectAll = (result: Run): void => {
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\n {2}read +30,000 lines\n {2}sent +30,000\n/)
    expect(collector.messages).toHaveLength(COUNT)
    expect(new Set(receivedLines()).size).toBe(COUNT)
  }

  it('through a pipe: cat export.jsonl.gz | eventrail import -', async () => {
    expectAll(await startPiped(dir, `cat '${gz}'`, ['import', ...send('-')]).done)
  })

  it('through a redirect: eventrail import - < export.jsonl.gz', async () => {
    const fd = openSync(gz, 'r')
    try {
      expectAll(await run(send('-'), { fd }))
    } finally {
      closeSync(fd)
    }
  })
})

describe('--resume checks that the input is the one the checkpoint was written for (21/5)', () => {
  it('a new 50-line export under the old name, after a checkpoint at line 30: refused, naming why and what to do, nothing sent', async () => {
    const file = writeLines('export.jsonl', lines(1, 30))
    expect((await run(send(file))).code).toBe(0)
    const checkpoint = readFileSync(`${file}.checkpoint`, 'utf8')
    writeLines('export.jsonl', lines(1, 50, 'Re-exported'))
    const result = await run(send(file, '--resume'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`eventrail import: ${file} is not the input that the checkpoint ${file}.checkpoint was written for: `)
    expect(result.stderr).toContain('Resuming would skip lines that were never sent. Add --restart to import it from line 1')
    expect(collector.messages).toHaveLength(30)
    expect(readFileSync(`${file}.checkpoint`, 'utf8')).toBe(checkpoint)
  })

  it('a 20-line file with a checkpoint at line 50: refused, naming the sizes', async () => {
    const file = writeLines('export.jsonl', lines(1, 50))
    expect((await run(send(file))).code).toBe(0)
    const size = readFileSync(file).length
    writeLines('export.jsonl', lines(1, 20))
    const result = await run(send(file, '--resume'))
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      new RegExp(`it is [\\d,]+ bytes, and line 50 ended at byte ${(size - 1).toLocaleString('en-US')}\\. Resuming would skip lines`),
    )
    expect(collector.messages).toHaveLength(50)
  })

  it('a line changed before the checkpoint (same length): refused', async () => {
    const file = writeLines('export.jsonl', lines(1, 40))
    expect((await run(send(file))).code).toBe(0)
    const changed = lines(1, 60)
    changed[9] = changed[9].replace('"u10"', '"u99"')
    writeLines('export.jsonl', changed)
    const result = await run(send(file, '--resume'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('differ')
    expect(collector.messages).toHaveLength(40)
  })

  it('the same lines with more appended: resumes and sends only the new ones', async () => {
    const file = writeLines('export.jsonl', lines(1, 30))
    expect((await run(send(file))).code).toBe(0)
    writeLines('export.jsonl', lines(1, 50))
    const result = await run(send(file, '--resume'))
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Resuming after line 30')
    expect(receivedLines()).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(checkpointOf(file)).toMatchObject({ line: 50, complete: true })
  })

  it('a .gz export: the same content compressed again resumes, another content is refused', async () => {
    const file = path.join(dir, 'export.jsonl.gz')
    writeFileSync(file, gzipSync(lines(1, 300).join('\n') + '\n', { level: 1 }))
    expect((await run(send(file))).code).toBe(0)
    // Compressed again (another level, other bytes on disk), with more lines: the content up to the checkpoint is the same.
    writeFileSync(file, gzipSync(lines(1, 400).join('\n') + '\n', { level: 9 }))
    const resumed = await run(send(file, '--resume'))
    expect(resumed.code).toBe(0)
    expect(collector.messages).toHaveLength(400)
    writeFileSync(file, gzipSync(lines(1, 500, 'Other').join('\n') + '\n'))
    const refused = await run(send(file, '--resume'))
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('is not the input that the checkpoint')
    expect(collector.messages).toHaveLength(400)
  })

  it('standard input with --checkpoint: the same stream resumes, another is refused', async () => {
    const first = Buffer.from(lines(1, 100).join('\n') + '\n')
    expect((await run(send('-', '--checkpoint', 'stdin.checkpoint'), first)).code).toBe(0)
    const more = Buffer.from(lines(1, 120).join('\n') + '\n')
    expect((await run(send('-', '--checkpoint', 'stdin.checkpoint', '--resume'), more)).code).toBe(0)
    expect(collector.messages).toHaveLength(120)
    const other = Buffer.from(lines(1, 150, 'Other').join('\n') + '\n')
    const refused = await run(send('-', '--checkpoint', 'stdin.checkpoint', '--resume'), other)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('standard input is not the input that the checkpoint stdin.checkpoint was written for')
    expect(collector.messages).toHaveLength(120)
  })

  it('a checkpoint without the content it is of (an older eventrail): refused, with --restart as the way on', async () => {
    const file = writeLines('export.jsonl', lines(1, 10))
    writeFileSync(`${file}.checkpoint`, JSON.stringify({ line: 5, file, updatedAt: '2026-01-01T00:00:00.000Z' }))
    const result = await run(send(file, '--resume'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('does not record what identifies the content')
    expect(result.stderr).toContain('--restart')
    expect(collector.requests).toHaveLength(0)
  })
})

describe("the checkpoint's temporary file (21/6)", () => {
  it('a symbolic link planted under the old predictable name (<checkpoint>.<pid>.tmp) is never written through', async () => {
    const file = writeLines('export.jsonl', lines(1, 3000))
    const victim = path.join(dir, 'victim.txt')
    writeFileSync(victim, 'the user’s own file\n')
    const started = startCli(dir, ['import', ...send(file, '--rate', '3000')])
    symlinkSync(victim, `${file}.checkpoint.${started.child.pid}.tmp`)
    const result = await started.done
    expect(result.code).toBe(0)
    expect(readFileSync(victim, 'utf8')).toBe('the user’s own file\n')
    expect(checkpointOf(file)).toMatchObject({ line: 3000, complete: true })
    // No temporary file is left behind (only the planted link).
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([`export.jsonl.checkpoint.${started.child.pid}.tmp`])
  })
})

describe('a checkpoint or a report that cannot be written is said, and the exit status is not 0 (21/11)', () => {
  it('a checkpoint that cannot be created: refused before anything is sent, naming the flag and why', async () => {
    const file = writeLines('export.jsonl', lines(1, 10))
    writeFileSync(path.join(dir, 'not-a-dir'), '')
    const result = await run(send(file, '--checkpoint', 'not-a-dir/export.checkpoint'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('eventrail import: --checkpoint not-a-dir/export.checkpoint cannot be written (ENOTDIR')
    expect(collector.requests).toHaveLength(0)
  })

  it('a checkpoint that can no longer be written halfway: the summary says NOT WRITTEN and the exit status is 1', async () => {
    const file = writeLines('export.jsonl', lines(1, 3000))
    const sub = path.join(dir, 'sub')
    mkdirSync(sub)
    const started = startCli(dir, ['import', ...send(file, '--checkpoint', 'sub/export.checkpoint', '--rate', '2000')])
    await waitFor(() => existsSync(path.join(sub, 'export.checkpoint')), 'the first checkpoint')
    rmSync(sub, { recursive: true })
    writeFileSync(sub, 'a file where the directory was')
    const result = await started.done
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('eventrail import: cannot write the checkpoint sub/export.checkpoint: ENOTDIR')
    expect(result.stdout).toMatch(/ {2}checkpoint {2}NOT WRITTEN to sub\/export\.checkpoint: ENOTDIR.*\(the last written is line [\d,]+\)/)
    expect(result.stdout).not.toMatch(/checkpoint {2}line /)
    expect(collector.messages).toHaveLength(3000)
  })

  const hasDevFull = existsSync('/dev/full')
  ;(hasDevFull ? it : it.skip)('a report that cannot be written (a full disk: /dev/full): said in the summary, exit 1', async () => {
    const file = writeLines('export.jsonl', [trackLine(1), '{"type":"track"}', trackLine(3)])
    const result = await run(send(file, '--report', '/dev/full'))
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/ {2}report {6}NOT WRITTEN in full to \/dev\/full: ENOSPC/)
    expect(collector.messages).toHaveLength(2)
  })
})

describe('numeric flags are checked, naming the flag and its rule (21/12)', () => {
  it.each([
    ['--progress-interval', '0.0005', '--progress-interval must be a number of seconds, from 0.001 to 86,400 (got "0.0005")'],
    ['--progress-interval', '1e9', '--progress-interval must be a number of seconds, from 0.001 to 86,400 (got "1e9")'],
    ['--rate', '1e-9', '--rate must be a number of messages a second, at least 0.01 (got "1e-9")'],
    ['--rate', '0', '--rate must be a number of messages a second, at least 0.01 (got "0")'],
    ['--rate', 'fast', '--rate must be a number of messages a second, at least 0.01 (got "fast")'],
    ['--max-pending', '2.5', '--max-pending must be a whole number, from 1 to 500,000 (got "2.5")'],
    ['--max-pending', '0x10', '--max-pending must be a whole number, from 1 to 500,000 (got "0x10")'],
    ['--max-requests-per-second', '0', '--max-requests-per-second must be a number of requests a second, at least 1 (got "0")'],
  ])('%s %s: exit 2 with the rule, nothing sent', async (flag, value, message) => {
    const file = writeLines('export.jsonl', lines(1, 5))
    const result = await run(send(file, flag, value))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`eventrail import: ${message}`)
    expect(result.stderr).not.toMatch(/TimeoutOverflowWarning|progressInterval|"rate"/)
    expect(collector.requests).toHaveLength(0)
  })

  it('--max-requests-per-second sets the cap that aliases go at, one a request', async () => {
    const aliases = Array.from({ length: 60 }, (_, i) => JSON.stringify({ type: 'alias', previousId: `a${i}`, userId: `u${i}` }))
    const file = writeLines('aliases.jsonl', aliases)
    const startedAt = Date.now()
    const result = await run(send(file, '--max-requests-per-second', '20'))
    expect(result.code).toBe(0)
    // 20 a second, one alias a request: the last 20 go out 2 s after the first.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1900)
    expect(collector.requests.filter((r) => r.path === '/v1/alias')).toHaveLength(60)
  })
})

describe('finding the command, stopping it and running it again (25/6)', () => {
  it.each([[['--help']], [['-h']], [['help']], [[]]])('eventrail %j lists every command, one line each, with an example', async (args) => {
    const result = await startCli(dir, args).done
    const text = result.stdout + result.stderr
    expect(text).toMatch(/\n {2}dev {7}\S.+\n {2}import {4}\S.+\n/)
    expect(text).toContain('eventrail import events.jsonl --write-key KEY')
    expect(text).toContain('eventrail dev')
    expect(result.code).toBe(args.length === 0 ? 2 : 0)
  })

  it('eventrail import --help says how aliases are capped and how to raise it', async () => {
    const result = await startCli(dir, ['import', '--help']).done
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('--max-requests-per-second N')
    expect(result.stdout).toMatch(/default 500,\s+what the service recommends\)\. Each alias goes in a\s+request of its own/)
  })

  it('running again without --resume, after Ctrl+C: exit 2 saying to add --resume or --restart; nothing sent, the checkpoint kept; --restart starts over', async () => {
    const file = writeLines('export.jsonl', lines(1, 3000))
    const first = startCli(dir, ['import', ...send(file, '--rate', '1500')])
    await waitFor(() => collector.messages.length > 300, '300 messages')
    first.child.kill('SIGINT')
    const stopped = await first.done
    expect(stopped.code).toBe(130)
    const saved = checkpointOf(file).line as number
    expect(stopped.stdout).toContain(
      `Stopped. To continue from line ${(saved + 1).toLocaleString('en-US')}, run the same command with --resume.`,
    )
    const checkpoint = readFileSync(`${file}.checkpoint`, 'utf8')
    const sent = collector.messages.length

    const again = await run(send(file))
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(
      `eventrail import: an import of ${file} stopped after line ${saved.toLocaleString('en-US')} (checkpoint ${file}.checkpoint, written `,
    )
    expect(again.stderr).toContain(
      `Add --resume to continue after line ${saved.toLocaleString('en-US')}, or --restart to import it again from line 1`,
    )
    expect(collector.messages).toHaveLength(sent)
    expect(readFileSync(`${file}.checkpoint`, 'utf8')).toBe(checkpoint)

    const restarted = await run(send(file, '--restart'))
    expect(restarted.code).toBe(0)
    expect(restarted.stdout).toContain('Starting again at line 1 (--restart)')
    expect(collector.messages).toHaveLength(sent + 3000)
    expect(checkpointOf(file)).toMatchObject({ line: 3000, complete: true })
  })

  it('running again after a complete import: exit 2, it was imported in full; --resume and --restart together: a usage error', async () => {
    const file = writeLines('export.jsonl', lines(1, 10))
    expect((await run(send(file))).code).toBe(0)
    const again = await run(send(file))
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`${file} was imported in full already`)
    const both = await run(send(file, '--resume', '--restart'))
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--resume and --restart do not go together')
    expect(collector.messages).toHaveLength(10)
  })

  it('the percentage follows the lines that have their outcome, not the reads; the ETA waits until enough is known', async () => {
    const file = writeLines('export.jsonl', lines(1, 4000))
    const result = await run(send(file, '--rate', '1000', '--json', '--progress-interval', '0.25'))
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number | null | string>)
      .filter((e) => e.event === 'progress')
    expect(events.length).toBeGreaterThan(8)
    for (const e of events) {
      const done = ((e.sent as number) + (e.refused as number) + (e.failed as number)) / 4000
      // Every line is about the same length: bytes done track lines done.
      expect(Math.abs((e.percent as number) / 100 - done)).toBeLessThan(0.02)
      if ((e.elapsedMs as number) < 3000) expect(e.etaSeconds).toBeNull()
    }
    const later = events.filter((e) => (e.elapsedMs as number) >= 3100 && (e.percent as number) < 95)
    for (const e of later) {
      // The time left at the pace so far (1,000 a second, or less on a loaded machine).
      const done = (e.sent as number) + (e.refused as number) + (e.failed as number)
      const left = ((4000 - done) * (e.elapsedMs as number)) / done / 1000
      expect(Math.abs((e.etaSeconds as number) - left)).toBeLessThanOrEqual(1.5)
    }
  })

  it('--dry-run says "would send", never "sent"', async () => {
    const file = writeLines('dry.jsonl', [trackLine(1), trackLine(2)])
    const result = await run([file, '--dry-run'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^read 2 · would send 2 · /m)
    expect(result.stdout).toMatch(/\n {2}would send {2}2\n/)
    expect(result.stdout).not.toMatch(/\bsent\b/)
    expect(collector.requests).toHaveLength(0)
  })
})

describe("replaying the collector's --out file (25/6)", () => {
  // A capture with accepted messages and messages the collector dropped (sent with a key it does not know).
  async function capture(out: string): Promise<void> {
    const capturing = await createCollector({ out, writeKeys: ['dev-key'] })
    for (const [key, count] of [
      ['dev-key', 6],
      ['wrong-key', 4],
    ] as const) {
      const client = new Analytics(key, { host: capturing.url, errorHandler: () => {} })
      for (let i = 1; i <= count; i++) client.track({ userId: `${key}-${i}`, event: 'Captured' })
      await client.closeAndFlush()
    }
    await capturing.close()
  }

  it('--verdict accepted imports only what the collector accepted; the rest is counted as skipped', async () => {
    const out = path.join(dir, 'captured.jsonl')
    await capture(out)
    const result = await run(send(out, '--verdict', 'accepted'))
    expect(result.code).toBe(0)
    expect(collector.messages.map((r) => r.message.userId).sort()).toEqual([
      'dev-key-1',
      'dev-key-2',
      'dev-key-3',
      'dev-key-4',
      'dev-key-5',
      'dev-key-6',
    ])
    expect(result.stdout).toMatch(/ {2}skipped +4 {2}\(blank lines, and records not accepted\)/)
  })

  it('without --verdict, the dropped records are imported too, and the summary says how to leave them out', async () => {
    const out = path.join(dir, 'captured.jsonl')
    await capture(out)
    const result = await run(send(out))
    expect(result.code).toBe(0)
    expect(collector.messages).toHaveLength(10)
    expect(result.stdout).toContain(
      '4 of the records were dropped by the collector when it received them, and were imported too: add --verdict accepted',
    )
  })

  it('importing the file into the collector that is appending to it reads only what it held at the start', async () => {
    await collector.close()
    const out = path.join(dir, 'loop.jsonl')
    collector = await createCollector({ out, writeKeys: ['import-key'], maxMessages: 100_000 })
    const client = new Analytics('import-key', { host: collector.url })
    for (let i = 1; i <= 500; i++) client.track({ userId: `u${i}`, event: 'First', properties: { line: i } })
    await client.closeAndFlush()
    await waitFor(() => readFileSync(out, 'utf8').split('\n').length > 500, 'the capture on disk')
    const result = await run(send(out))
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/ {2}read {8}500 lines\n {2}sent {8}500\n/)
    expect(collector.messages).toHaveLength(1000)
    expect(result.stdout).toMatch(/grew by [\d,]+ bytes during the import: only the [\d,]+ bytes it had at the start were read/)
  })
})
