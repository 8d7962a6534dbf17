import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createCollector, type Collector } from '../../src/collector'
import { lostAtExitText } from '../../src/platform/exit-hook'

// Issue 25, item 5: process.exit() with messages still queued lost them without a word. The
// process now says so once on stderr, naming how many and the fix; nothing when nothing is lost.
const ROOT = join(__dirname, '..', '..')
let collector: Collector
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.cjs'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
})
beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['exit-key'] })
})
afterEach(() => collector.close())

/** Runs CommonJS source in a child node, where require('eventrail') resolves to dist/. */
function run(body: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const source = `const { Analytics } = require('eventrail')
const analytics = new Analytics('exit-key', { host: process.env.COLLECTOR, flushAt: 100, flushInterval: 0 })
const track = (n) => { for (let i = 0; i < n; i++) analytics.track({ userId: 'u' + i, event: 'Exit Test' }) }
;(async () => { ${body} })()`
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-e', source],
      { cwd: ROOT, env: { ...process.env, COLLECTOR: collector.url }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe('the process exits with messages not yet delivered', () => {
  it('says once on stderr how many are lost and how to send them', async () => {
    const result = await run('track(25); process.exit(0)')
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'eventrail: the process is exiting with 25 messages not yet delivered, which are lost; call `await analytics.closeAndFlush()` before process.exit() to send them\n',
    })
    expect(collector.messages).toHaveLength(0)
  })

  it('counts the messages of every instance, and says it for one message too', async () => {
    const result = await run(
      `track(1); new Analytics('exit-key', { host: process.env.COLLECTOR, flushAt: 100 }).track({ userId: 'x', event: 'E' }); process.exit(3)`,
    )
    expect(result.code).toBe(3)
    expect(result.stderr).toBe(lostAtExitText(2))
    expect(lostAtExitText(1)).toContain('with 1 message not yet delivered')
  })

  it('says one message "is" lost, not "are" (issue 30)', async () => {
    const result = await run('track(1); process.exit(0)')
    expect(result.stderr).toBe(
      'eventrail: the process is exiting with 1 message not yet delivered, which is lost; call `await analytics.closeAndFlush()` before process.exit() to send them\n',
    )
    expect(lostAtExitText(2)).toContain('2 messages not yet delivered, which are lost')
  })

  it('says nothing after closeAndFlush(): every message arrived', async () => {
    const result = await run('track(25); await analytics.closeAndFlush(); process.exit(0)')
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
    expect(collector.messages).toHaveLength(25)
  })

  it('says nothing when the process ends by itself: the queue is drained before exit', async () => {
    const result = await run('track(25)')
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
    expect(collector.messages).toHaveLength(25)
  })

  it('says nothing for a client with enable: false (it sends nothing, so nothing is lost)', async () => {
    const result = await run(`new Analytics('exit-key', { enable: false }).track({ userId: 'x', event: 'E' }); process.exit(0)`)
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('says nothing when nothing was tracked', async () => {
    const result = await run('process.exit(0)')
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' })
  })
})
