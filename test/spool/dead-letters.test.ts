import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { PassThrough } from 'node:stream'
import { Analytics, DeliveryError, ValidationError } from '../../src'
import { runSpoolCommand } from '../../src/cli/spool-command'
import { createCollector, type Collector } from '../../src/collector'
import { sleep } from '../faults/fault-server'
import { startJudgingServer, type JudgingServer } from '../faults/judging-server'
import { trackMessage } from '../faults/outcomes'
import { assertBuilt, startCli } from '../import/run-cli'
import { deadPart, filesUnder, frame, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 32, part 5: with `spool: { keepRejected }`, messages the service refuses for good (400,
// 413 alone, 422) are appended with their status and reason to a bounded file of the spool
// directory, shown by `eventrail spool inspect`, and re-imported after a fix with
// `eventrail spool export --rejected` → `eventrail import`.

const { keep, tempDir } = spoolTestFile()
let server: JudgingServer | undefined
let collector: Collector | undefined
beforeAll(assertBuilt)
afterEach(async () => {
  await server?.close()
  await collector?.close()
  server = collector = undefined
})

const KEY = 'dead-letter-key'
// The service refuses a message whose properties say so, with that status; it takes the others.
const judge = (messages: any[]): number => messages.find((m) => typeof m?.properties?.refuse === 'number')?.properties.refuse ?? 200

function client(dir: string, keepRejected: unknown): Analytics {
  return keep(
    new Analytics(KEY, { host: (server as JudgingServer).url, flushAt: 1, spool: { dir, keepRejected } as never, errorHandler: () => undefined }),
  )
}

/** Tracks each message with a callback and waits for every outcome. */
async function trackAll(analytics: Analytics, messages: Array<ReturnType<typeof trackMessage>>): Promise<Map<string, Error | undefined>> {
  const outcomes = new Map<string, Error | undefined>()
  await Promise.all(messages.map((m) => new Promise<void>((resolve) => analytics.track(m, (err) => resolve(void outcomes.set(m.messageId, err))))))
  return outcomes
}

const rejectedFiles = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('rejected-')).sort()
const io = (stdin = new PassThrough(), isTTY = false) => {
  const out = { stdout: '', stderr: '' }
  const sink = (key: 'stdout' | 'stderr') => Object.assign(new PassThrough(), { write: (text: string) => ((out[key] += text), true) }) as never
  return { out, io: { stdout: sink('stdout'), stderr: sink('stderr'), stdin: Object.assign(stdin, { isTTY }) } }
}

describe('keepRejected: messages refused for good are kept', () => {
  it('400, 413 (alone) and 422 refusals are kept with their status and reason, shown by inspect, and re-imported after a fix: every one arrives', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const analytics = client(dir, true)
    const messages = [
      ...[0, 1, 2, 3, 4].map((i) => trackMessage(`ok${i}`)),
      trackMessage('bad400a', { refuse: 400 }),
      trackMessage('bad400b', { refuse: 400 }),
      trackMessage('bad422', { refuse: 422 }),
      trackMessage('bad413', { refuse: 413 }),
    ]
    const outcomes = await trackAll(analytics, messages)
    expect(await analytics.closeAndFlush()).toEqual({ waiting: 0 })
    // Their callbacks still get the refusal: a dead letter is a copy, not a retry.
    expect([...outcomes].filter(([, err]) => err !== undefined).map(([id, err]) => [id, (err as DeliveryError).status])).toEqual([
      ['bad400a', 400],
      ['bad400b', 400],
      ['bad422', 422],
      ['bad413', 413],
    ])
    // The part is gone with its records; the dead letters stay.
    expect(filesUnder(dir)).toEqual(rejectedFiles(dir))
    const [file] = rejectedFiles(dir)
    const lines = readFileSync(path.join(dir, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.message.messageId, l.status, l.reason])).toEqual([
      ['bad400a', 400, 'status'],
      ['bad400b', 400, 'status'],
      ['bad422', 422, 'status'],
      ['bad413', 413, 'status'],
    ])
    expect(statSync(path.join(dir, file)).mode & 0o777).toBe(0o600)

    const inspected = await startCli(dir, ['spool', 'inspect', '--json', dir]).done
    expect(JSON.parse(inspected.stdout).rejected).toEqual([expect.objectContaining({ kept: 4, dropped: 0, byStatus: { 400: 2, 413: 1, 422: 1 } })])
    expect((await startCli(dir, ['spool', 'inspect', dir]).done).stdout).toContain('4 kept (400 ×2, 413 ×1, 422 ×1)')

    const exported = await startCli(dir, ['spool', 'export', '--rejected', dir]).done
    expect(exported.code).toBe(0)
    const out = path.join(tempDir(), 'refused.jsonl')
    writeFileSync(out, exported.stdout)
    collector = await createCollector({ writeKeys: [KEY] })
    expect((await startCli(path.dirname(out), ['import', out, '--write-key', KEY, '--host', collector.url]).done).code).toBe(0)
    expect(collector.messages.map((m) => m.message.messageId).sort()).toEqual(['bad400a', 'bad400b', 'bad413', 'bad422'])
    expect(collector.messages.every((m) => m.verdict === 'accepted')).toBe(true)
  }, 30_000)

  it('the file is bounded: past it the oldest are dropped and counted, the newest kept', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const analytics = client(dir, { maxBytes: 128 * 1024 })
    const messages = Array.from({ length: 60 }, (_, i) => trackMessage(`r${i}`, { refuse: 400, pad: 'x'.repeat(4000) }))
    await trackAll(analytics, messages)
    await analytics.closeAndFlush()
    const bytes = rejectedFiles(dir).reduce((n, f) => n + statSync(path.join(dir, f)).size, 0)
    expect(bytes).toBeLessThanOrEqual(128 * 1024)
    const { out, io: streams } = io()
    expect(await runSpoolCommand(['inspect', '--json', dir], streams)).toBe(0)
    const [set] = JSON.parse(out.stdout).rejected
    expect(set.dropped).toBeGreaterThan(0)
    expect(set.kept + set.dropped).toBe(60)
    const exported = io()
    await runSpoolCommand(['export', '--rejected', dir], exported.io)
    const ids = exported.out.stdout.trim().split('\n').map((l) => JSON.parse(l).messageId)
    // The newest, in order.
    expect(ids).toEqual(messages.slice(60 - set.kept).map((m) => m.messageId))
  }, 30_000)

  it('a message that keeps failing alone while the service takes the others is kept as poison', async () => {
    server = await startJudgingServer((messages) => (messages.some((m) => m?.messageId === 'poison') ? 500 : 200))
    const dir = tempDir()
    const analytics = keep(new Analytics(KEY, { host: server.url, maxRetryTime: 3_000, spool: { dir, keepRejected: true }, errorHandler: () => undefined }))
    // Steady traffic (as in poison.test.ts): the requests the service takes are the evidence that
    // the failing batch, not the service, is the problem.
    const pending: Array<Promise<Map<string, Error | undefined>>> = []
    for (let tick = 0; tick < 15; tick++) {
      pending.push(trackAll(analytics, Array.from({ length: 10 }, (_, i) => trackMessage(tick === 1 && i === 4 ? 'poison' : `p${tick}-${i}`))))
      await sleep(100)
    }
    const failed = (await Promise.all(pending)).flatMap((m) => [...m].filter(([, err]) => err !== undefined).map(([id]) => id))
    await analytics.closeAndFlush()
    expect(failed).toEqual(['poison'])
    expect(server.accepted.size).toBe(149)
    const [file] = rejectedFiles(dir)
    const lines = readFileSync(path.join(dir, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.message.messageId, l.status, l.reason])).toEqual([['poison', 500, 'poison']])
  }, 20_000)

  it('without keepRejected nothing is kept', async () => {
    server = await startJudgingServer(judge)
    const dir = tempDir()
    const analytics = client(dir, undefined)
    await trackAll(analytics, [trackMessage('bad', { refuse: 400 })])
    await analytics.closeAndFlush()
    expect(readdirSync(dir)).toEqual([])
  })

  it.each([
    ['yes', 'spool.keepRejected', 'must be true, false or an object'],
    [{ maxBytes: 1000 }, 'spool.keepRejected.maxBytes', 'must be an integer from 131072'],
    [{ max: 1 }, 'spool.keepRejected.max', 'is not an option of keepRejected'],
  ])('keepRejected %j is refused, naming %s', (keepRejected, field, rule) => {
    let error: unknown
    try {
      new Analytics(KEY, { spool: { dir: tempDir(), keepRejected } as never })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ValidationError)
    expect(error).toMatchObject({ field })
    expect((error as Error).message).toContain(rule)
  })
})

describe('eventrail spool purge asks first', () => {
  it.each([
    ['n\n', 1, true],
    ['\n', 1, true],
    ['y\n', 0, false],
  ])('on a terminal, the answer %j exits %i (files stay: %s)', async (answer, code, stay) => {
    const dir = tempDir()
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('p1'))) }, { key: KEY, host: 'http://x' })
    const stdin = new PassThrough()
    const { out, io: streams } = io(stdin, true)
    const done = runSpoolCommand(['purge', dir], streams)
    stdin.end(answer)
    expect(await done).toBe(code)
    expect(out.stdout).toContain('Delete 1 waiting record,')
    expect(out.stdout).toContain('[y/N]')
    expect(filesUnder(dir).length > 0).toBe(stay)
  })

  it('purge --rejected --yes deletes the dead letters only', async () => {
    const dir = tempDir()
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('p1'))) }, { key: KEY, host: 'http://x' })
    writeFileSync(path.join(dir, `rejected-${'a'.repeat(32)}.jsonl`), `${JSON.stringify({ status: 400, message: wireMessage('d1') })}\n`, { mode: 0o600 })
    const { out, io: streams } = io()
    expect(await runSpoolCommand(['purge', '--rejected', '--yes', dir], streams)).toBe(0)
    expect(out.stdout).toContain('Deleted 1 dead letter ')
    expect(rejectedFiles(dir)).toEqual([])
    expect(filesUnder(dir).filter((f) => f.endsWith('.log'))).toHaveLength(1)
  })
})
