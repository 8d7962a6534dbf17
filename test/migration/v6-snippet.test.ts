import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCollector, type Collector, type MessageRecord } from '../../src/collector'

// Code written for analytics-node v6 runs against eventrail with one line changed: the import.
// The same file runs unchanged against analytics-node v6 itself (a devDependency), so the
// snippet is genuine v6 usage, and both runs are compared message by message.
const ROOT = join(__dirname, '..', '..')
const SNIPPET = readFileSync(join(__dirname, 'fixtures', 'v6-usage.cjs'), 'utf8')
const V6_IMPORT = "const Analytics = require('analytics-node')"
const EVENTRAIL_IMPORT = "const { Analytics } = require('eventrail')"
const WRITE_KEY = 'MIGRATION_WRITE_KEY'

let collector: Collector
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.cjs'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
})
beforeEach(async () => {
  collector = await createCollector({ writeKeys: [WRITE_KEY] })
})
afterEach(() => collector.close())

/** Runs CommonJS source with `node -e` in the package root, where require('eventrail') resolves to dist/. */
function runSnippet(source: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-e', source],
      { cwd: ROOT, env: { ...process.env, SEGMENT_WRITE_KEY: WRITE_KEY, SEGMENT_HOST: collector.url }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

// What a user's code decided, without what each library adds (messageId, context.library, _metadata).
function userFields(record: MessageRecord) {
  const m = record.message
  const picked: Record<string, unknown> = { type: record.type }
  for (const key of [
    'event',
    'userId',
    'anonymousId',
    'previousId',
    'groupId',
    'name',
    'category',
    'properties',
    'traits',
    'integrations',
  ]) {
    if (m[key] !== undefined) picked[key] = m[key]
  }
  if (m.event === 'Trial Started') picked.timestamp = m.timestamp
  picked.ip = (m.context as { ip?: string } | undefined)?.ip
  return picked
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))

describe('migrating from analytics-node v6', () => {
  it('the eventrail version of the snippet differs from the v6 one in its import line only', () => {
    const lines = SNIPPET.split('\n')
    const changed = SNIPPET.replace(V6_IMPORT, EVENTRAIL_IMPORT).split('\n')
    expect(lines.filter((line, i) => line !== changed[i])).toEqual([V6_IMPORT])
  })

  it('runs the v6 snippet with the new import, sending what v6 sends, and the alias where the wire spec wants it', async () => {
    const v6 = await runSnippet(SNIPPET)
    expect(v6).toEqual({ code: 0, stdout: 'flushed\n', stderr: '' })
    const fromV6 = collector.messages.map((r) => ({ ...userFields(r), library: (r.message.context as any)?.library?.name }))
    // v6 puts alias in the batch, which the wire interface does not allow: the service drops it.
    expect(collector.messages.filter((r) => r.verdict === 'dropped').map((r) => [r.type, r.code])).toEqual([['alias', 'alias_in_batch']])
    collector.clear()

    const eventrail = await runSnippet(SNIPPET.replace(V6_IMPORT, EVENTRAIL_IMPORT))
    expect(eventrail).toEqual({ code: 0, stdout: 'flushed\n', stderr: '' })
    expect(collector.messages.map((r) => r.verdict)).toEqual(new Array(10).fill('accepted'))
    expect(collector.messages.find((r) => r.type === 'alias')?.path).toBe('/v1/alias')
    expect(collector.messages.every((r) => r.writeKey === WRITE_KEY)).toBe(true)
    const fromEventrail = collector.messages.map((r) => ({ ...userFields(r), library: (r.message.context as any)?.library?.name }))

    expect(fromV6.map((m) => m.library)).toEqual(new Array(10).fill('analytics-node'))
    expect(fromEventrail.map((m) => m.library)).toEqual(new Array(10).fill('eventrail'))
    const strip = (list: Record<string, unknown>[]) => list.map(({ library: _, ...rest }) => rest).sort(byJson)
    expect(strip(fromEventrail)).toEqual(strip(fromV6))
  })
})
