import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, realpathSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { gzipSync } from 'node:zlib'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'
import { loadLineIdHasher } from '../../src/import/message-id'

// `eventrail import` as a user runs it: the BUILT bin (dist/cli.cjs; `npm test` builds first) in a
// child process, against the local collector over real HTTP on 127.0.0.1.
const CLI = path.resolve(__dirname, '../../dist/cli.cjs')

let collector: Collector
let dir: string

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`dist/cli.cjs is missing: run "npm run build" first (npm test builds before testing). Looked at ${CLI}`)
})

beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['import-key'], maxMessages: 100_000 })
  dir = mkdtempSync(path.join(tmpdir(), 'eventrail-import-'))
})

afterEach(async () => {
  await collector.close()
  rmSync(dir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function start(args: string[], stdin?: Buffer): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [CLI, 'import', ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => (stdout += chunk))
  child.stderr?.on('data', (chunk) => (stderr += chunk))
  child.stdin?.end(stdin)
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
  return { child, done }
}

const run = (args: string[], stdin?: Buffer): Promise<Run> => start(args, stdin).done
const send = (file: string, ...more: string[]): string[] => [file, '--write-key', 'import-key', '--host', collector.url, ...more]
const trackLine = (i: number): string => JSON.stringify({ type: 'track', userId: `u${i}`, event: 'Imported', properties: { line: i } })

function writeLines(name: string, lines: string[]): string {
  const file = path.join(dir, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

const readReport = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('eventrail import FILE', () => {
  it('sends every valid line once and reports each refused line with its number and reason (exit 1)', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => trackLine(i + 1))
    lines[9] = '{"type":"track","userId":"u10"' // line 10: not JSON
    lines[49] = JSON.stringify({ type: 'track', userId: 'u50' }) // line 50: no event
    lines[99] = JSON.stringify({ type: 'track', userId: 'u100', event: 'Big', properties: { body: 'x'.repeat(40_000) } }) // line 100: over 32 KB
    const file = writeLines('events.jsonl', lines)
    const result = await run(send(file, '--report', 'report.jsonl'))
    expect(result.code).toBe(1)
    const report = readReport(path.join(dir, 'report.jsonl'))
    expect(report.map((r) => [r.line, r.outcome, r.error])).toEqual([
      [10, 'refused', 'ValidationError'],
      [50, 'refused', 'ValidationError'],
      [100, 'refused', 'MessageTooLargeError'],
    ])
    expect(report[1].reason).toBe('track: "event" is required and must be a non-empty string')
    const received = collector.messages.map((r) => (r.message.properties as { line: number }).line).sort((a, b) => a - b)
    expect(received).toEqual(Array.from({ length: 200 }, (_, i) => i + 1).filter((n) => ![10, 50, 100].includes(n)))
    expect(collector.messages.every((r) => r.verdict === 'accepted')).toBe(true)
    expect(JSON.parse(readFileSync(`${file}.checkpoint`, 'utf8'))).toMatchObject({ line: 200 })
  })

  it('prints plain progress lines and a summary table off a terminal, and exits 0 when every line is sent', async () => {
    const file = writeLines(
      'ok.jsonl',
      Array.from({ length: 300 }, (_, i) => trackLine(i + 1)),
    )
    const result = await run(send(file, '--rate', '400', '--progress-interval', '0.2'))
    expect(result.code).toBe(0)
    const out = result.stdout
    expect(out).not.toContain('\r')
    expect(out).not.toContain('\u001b')
    const progress = out.split('\n').filter((l) => l.startsWith('read '))
    expect(progress.length).toBeGreaterThan(1)
    expect(progress.at(-1)).toMatch(/^read 300 · sent 300 · refused 0 · failed 0 · 0\.0 MB · [\d,]+ msg\/s · 100%$/)
    expect(out).toMatch(
      /\n {2}read {8}300 lines\n {2}sent {8}300\n {2}refused {5}0\n {2}failed {6}0\n {2}bytes {7}[\d.]+ MB\n {2}time {8}[\d.]+ s\n {2}rate {8}[\d,]+ messages\/s\n/,
    )
    expect(collector.messages).toHaveLength(300)
  })

  it('reads standard input (-) and prints JSON progress events with --json', async () => {
    const input = Buffer.from(Array.from({ length: 50 }, (_, i) => trackLine(i + 1)).join('\n'))
    const result = await run(send('-', '--json'), input)
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(events.at(-1)).toMatchObject({ event: 'summary', read: 50, sent: 50, refused: 0, failed: 0, aborted: false, inputSize: null })
    expect(collector.messages).toHaveLength(50)
    expect(existsSync(path.join(dir, '-.checkpoint'))).toBe(false)
  })

  it('refuses a line that is not UTF-8 with its number, and sends the others', async () => {
    const file = path.join(dir, 'latin1.jsonl')
    const latin1 = Buffer.from('{"type":"track","userId":"u2","event":"Caf\u00e9"}', 'latin1')
    writeFileSync(file, Buffer.concat([Buffer.from(trackLine(1) + '\n'), latin1, Buffer.from('\n' + trackLine(3) + '\n')]))
    const report = path.join(dir, 'latin1.report.jsonl')
    const result = await run(send(file, '--report', report))
    expect(result.code).toBe(1)
    expect(readReport(report)).toEqual([
      expect.objectContaining({ line: 2, outcome: 'refused', reason: expect.stringContaining('"line" is not UTF-8 text') }),
    ])
    expect(collector.messages.map((r) => r.message.userId).sort()).toEqual(['u1', 'u3'])
  })

  it('reads a .gz file decompressed', async () => {
    const file = path.join(dir, 'events.jsonl.gz')
    writeFileSync(file, gzipSync(Array.from({ length: 120 }, (_, i) => trackLine(i + 1)).join('\n') + '\n'))
    const result = await run(send(file))
    expect(result.code).toBe(0)
    expect(collector.messages).toHaveLength(120)
  })

  it('finishes what it read from a cut .gz, writes the checkpoint, names the file and exits 1; --resume goes on once it is whole', async () => {
    const whole = gzipSync(Array.from({ length: 3000 }, (_, i) => trackLine(i + 1)).join('\n') + '\n')
    const file = path.join(dir, 'cut.jsonl.gz')
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)))
    const first = await run(send(file))
    expect(first.code).toBe(1)
    const read = collector.messages.length
    expect(read).toBeGreaterThan(0)
    expect(read).toBeLessThan(3000)
    expect(first.stderr).toContain(
      `eventrail import: ${file} could not be read past line ${read.toLocaleString('en-US')}: not valid gzip data`,
    )
    expect(first.stdout).toMatch(new RegExp(`read +${read.toLocaleString('en-US')} lines`))
    expect(JSON.parse(readFileSync(`${file}.checkpoint`, 'utf8')).line).toBe(read)
    // The lines before the cut arrived, in full, each once.
    const lines = collector.messages.map((r) => (r.message.properties as { line: number }).line).sort((a, b) => a - b)
    expect(lines).toEqual(Array.from({ length: read }, (_, i) => i + 1))
    writeFileSync(file, whole)
    const resumed = await run(send(file, '--resume'))
    expect(resumed.code).toBe(0)
    expect(collector.messages).toHaveLength(3000)
  })

  it('exits 1 naming the file when a .gz is not gzip at all, and sends nothing', async () => {
    const file = writeLines('plain.jsonl.gz', [trackLine(1)])
    const result = await run(send(file))
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`eventrail import: ${file} could not be read past line 0: not valid gzip data (incorrect header check)`)
    expect(collector.requests).toHaveLength(0)
  })

  it("replays a file written by eventrail dev --out, with the messages' own ids and types", async () => {
    const out = path.join(dir, 'captured.jsonl')
    const capture = await createCollector({ out })
    const { Analytics } = await import('../../src/index')
    const analytics = new Analytics('dev-key', { host: capture.url })
    analytics.identify({ userId: 'u1', traits: { plan: 'pro' } })
    analytics.track({ userId: 'u1', event: 'Signed Up' })
    analytics.alias({ previousId: 'a1', userId: 'u1' })
    await analytics.closeAndFlush()
    const sentIds = capture.messages.map((r) => r.message.messageId).sort()
    await capture.close()
    const result = await run(send(out))
    expect(result.code).toBe(0)
    expect(collector.messages.map((r) => r.type).sort()).toEqual(['alias', 'identify', 'track'])
    expect(collector.messages.map((r) => r.message.messageId).sort()).toEqual(sentIds)
  })

  it('goes on to the end when the reader of its output goes away (| head), and exits 0', async () => {
    const file = writeLines(
      'many.jsonl',
      Array.from({ length: 3000 }, (_, i) => trackLine(i + 1)),
    )
    const { child, done } = start(send(file, '--json', '--progress-interval', '0.001', '--rate', '20000'))
    // The first progress event read, the pipe is closed: every later write fails with EPIPE.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
    child.stdout!.destroy()
    const result = await done
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled|at /)
    expect(result.code).toBe(0)
    expect(collector.messages).toHaveLength(3000)
  })

  it('validates and counts without sending with --dry-run', async () => {
    const file = writeLines('dry.jsonl', [trackLine(1), '{"type":"page"}', trackLine(3)])
    const result = await run([file, '--dry-run'])
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/ {2}would send {2}2\n {2}refused {5}1\n/)
    expect(result.stderr).toContain('line 2: refused: page: "userId" or "anonymousId" is required')
    expect(collector.requests).toHaveLength(0)
  })

  it.each([
    [['events.jsonl'], '--write-key is required'],
    [['events.jsonl', '--write-key', 'k', '--host', 'ftp://example.com'], '--host must be an http(s) URL'],
    [['missing.jsonl', '--write-key', 'k'], 'missing.jsonl'],
  ])('exits 2 on a usage error, naming the flag or file: %j', async (args, message) => {
    writeLines('events.jsonl', [trackLine(1)])
    const result = await run(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`eventrail import: `)
    expect(result.stderr).toContain(message)
  })
})

describe('eventrail import: interruption and resume', () => {
  const COUNT = 3000

  async function expectEveryLineOnce(file: string): Promise<void> {
    const hash = await loadLineIdHasher()
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    const expected = new Set(lines.map((line, i) => hash(line, i + 1)))
    const received = new Set(collector.messages.map((r) => r.message.messageId as string))
    expect([...expected].filter((id) => !received.has(id))).toEqual([]) // no line missing
    expect([...received].filter((id) => !expected.has(id))).toEqual([]) // every id is a line's own
  }

  // An import of COUNT lines slowed down by --rate, so that it can be stopped halfway.
  function startSlowImport(name: string): { file: string; checkpoint: string; first: ReturnType<typeof start> } {
    const file = writeLines(
      name,
      Array.from({ length: COUNT }, (_, i) => trackLine(i + 1)),
    )
    return { file, checkpoint: `${file}.checkpoint`, first: start(send(file, '--rate', '1500')) }
  }

  it('kill -9 halfway, then --resume: every line arrives, duplicates only from what was in flight', async () => {
    const { file, checkpoint, first } = startSlowImport('big.jsonl')
    await waitFor(() => existsSync(checkpoint) && JSON.parse(readFileSync(checkpoint, 'utf8')).line > 500, 'a checkpoint past line 500')
    first.child.kill('SIGKILL')
    await first.done
    const saved = JSON.parse(readFileSync(checkpoint, 'utf8')).line as number
    const beforeResume = collector.messages.length
    expect(saved).toBeLessThan(COUNT)
    expect(beforeResume).toBeGreaterThanOrEqual(saved)

    const second = await run(send(file, '--resume'))
    expect(second.code).toBe(0)
    expect(second.stdout).toContain(`Resuming after line ${saved.toLocaleString('en-US')}`)
    await expectEveryLineOnce(file)
    // Lines up to the checkpoint are not sent again: duplicates are only what arrived past it.
    const duplicates = collector.messages.length - COUNT
    expect(duplicates).toBe(beforeResume - saved)
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).line).toBe(COUNT)
  })

  it('Ctrl+C (SIGINT) finishes what is in flight, writes the checkpoint and exits 130; --resume completes', async () => {
    const { file, checkpoint, first } = startSlowImport('sigint.jsonl')
    await waitFor(() => collector.messages.length > 300, '300 messages')
    first.child.kill('SIGINT')
    const result = await first.done
    expect(result.code).toBe(130)
    expect(result.stdout).toContain('Interrupted: finishing the messages in flight')
    const saved = JSON.parse(readFileSync(checkpoint, 'utf8')).line as number
    expect(result.stdout).toContain(`To continue from line ${(saved + 1).toLocaleString('en-US')}, run the same command with --resume.`)
    // Everything handed to the client had its outcome before the exit: the checkpoint is all that arrived.
    expect(saved).toBe(collector.messages.length)
    expect(saved).toBeLessThan(COUNT)

    const second = await run(send(file, '--resume'))
    expect(second.code).toBe(0)
    expect(collector.messages).toHaveLength(COUNT)
    await expectEveryLineOnce(file)
  })

  it('SIGTERM (docker stop) stops as Ctrl+C does: what is in flight finishes, the checkpoint is written, exit 143', async () => {
    const { checkpoint, first } = startSlowImport('sigterm.jsonl')
    await waitFor(() => collector.messages.length > 300, '300 messages')
    first.child.kill('SIGTERM')
    const result = await first.done
    expect(result.code).toBe(143)
    expect(result.stdout).toContain('Interrupted: finishing the messages in flight')
    expect(result.stdout).toContain('run the same command with --resume')
    expect(JSON.parse(readFileSync(checkpoint, 'utf8')).line).toBe(collector.messages.length)
  })

  it("refuses to resume from another file's checkpoint (it would skip lines), but knows the same file by any name", async () => {
    const first = writeLines('first.jsonl', [trackLine(1), trackLine(2), trackLine(3)])
    const other = writeLines('other.jsonl', [trackLine(1), trackLine(2), trackLine(3)])
    expect((await run(send(first))).code).toBe(0)
    const checkpoint = `${first}.checkpoint`
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({ line: 3, file: realpathSync(first) })

    const wrong = await run(send(other, '--resume', '--checkpoint', checkpoint))
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(`${checkpoint} is the checkpoint of ${realpathSync(first)}, not of ${other}`)
    expect(collector.messages).toHaveLength(3)

    // The same file by a relative name (the command runs in its directory): it resumes, after line 3.
    const same = await run(send('first.jsonl', '--resume', '--checkpoint', checkpoint))
    expect(same.code).toBe(0)
    expect(same.stdout).toContain('Resuming after line 3')
    expect(collector.messages).toHaveLength(3)
  })
})
