import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(__dirname, '..', '..')

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'testing.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
})

describe('eventrail/testing with node --test', () => {
  it("runs under node's own test runner against the built package, and every test passes", () => {
    const fixture = join(__dirname, 'fixtures', 'signup.node-test.mjs')
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', fixture], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/^# pass 2$/m)
    expect(run.stdout).toMatch(/^# fail 0$/m)
    expect(run.status).toBe(0)
  })
})
