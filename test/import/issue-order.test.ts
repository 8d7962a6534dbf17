import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCollector, type Collector } from '../../src/collector'
import { Watermark } from '../../src/import/watermark'
import { assertBuilt, startCli } from './run-cli'

// Issue 30: the import printed its refusal lines out of order (line 6 before line 3): a line that
// is not JSON is refused at once, a message the client refuses a moment later. The terminal now
// shows them in line order: a line is printed once every line before it has its outcome.

let collector: Collector
let dir: string
beforeAll(() => assertBuilt())
beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['k'] })
  dir = await mkdtemp(join(tmpdir(), 'eventrail-order-'))
})
afterEach(async () => {
  await collector.close()
  await rm(dir, { recursive: true, force: true })
})

const track = (i: number): string => JSON.stringify({ type: 'track', userId: `u${i}`, event: 'E' })
const noEvent = (i: number): string => JSON.stringify({ type: 'track', userId: `u${i}` }) // the client refuses it
const notJson = '{"type": "track",'

it('prints refusals in line order, whatever order their outcomes come in', async () => {
  const lines: string[] = []
  const refused: number[] = []
  for (let i = 1; i <= 60; i++) {
    const kind = i % 10 === 3 ? 'client' : i % 10 === 6 ? 'json' : 'ok'
    lines.push(kind === 'client' ? noEvent(i) : kind === 'json' ? notJson : track(i))
    if (kind !== 'ok') refused.push(i)
  }
  const file = join(dir, 'events.jsonl')
  await writeFile(file, lines.join('\n') + '\n')
  const run = await startCli(dir, ['import', file, '--write-key', 'k', '--host', collector.url]).done
  expect(run.code).toBe(1)
  const printed = [...run.stderr.matchAll(/^line (\d+): refused: /gm)].map((m) => Number(m[1]))
  expect(printed).toEqual(refused)
  expect(collector.messages).toHaveLength(60 - refused.length)
})

it('shows the first 20 refusals by line, then says there are more', async () => {
  // Line 1 refused by the client (later), lines 2..30 at once (not JSON): line 1 still comes first.
  const lines = [noEvent(1), ...Array.from({ length: 29 }, () => notJson)]
  const file = join(dir, 'events.jsonl')
  await writeFile(file, lines.join('\n') + '\n')
  const run = await startCli(dir, ['import', file, '--write-key', 'k', '--host', collector.url]).done
  const printed = [...run.stderr.matchAll(/^line (\d+): refused: /gm)].map((m) => Number(m[1]))
  expect(printed).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
  expect(run.stderr).toContain('… more lines refused or failed: pass --report FILE to keep them all')
})

it('the settled position goes on past a failed line; the checkpoint position stops before it', () => {
  const w = new Watermark(0)
  for (const p of [1, 2, 3, 4]) w.open(p)
  w.close(2, true)
  w.close(1)
  w.close(4)
  expect([w.value, w.settled]).toEqual([1, 2])
  w.close(3)
  w.pass(5)
  expect([w.value, w.settled, w.isBlocked]).toEqual([1, 5, true])
})

it('says "1 line", not "1 lines", in the summary', async () => {
  const file = join(dir, 'one.jsonl')
  await writeFile(file, track(1) + '\n')
  const run = await startCli(dir, ['import', file, '--write-key', 'k', '--host', collector.url]).done
  expect(run.code).toBe(0)
  expect(run.stdout).toMatch(/read +1 line\n/)
})
