import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// The type tests are files that tsc compiles: plain lines must compile, and every line after a
// `// @ts-expect-error` must fail, or tsc reports the directive as unused (TS2578). One tsc run.
const ROOT = join(__dirname, '..', '..')
const CASES = readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'assert.ts')

function expectErrorCount(file: string): number {
  return readFileSync(join(__dirname, file), 'utf8').match(/^\s*\/\/ @ts-expect-error /gm)?.length ?? 0
}

describe('type tests', () => {
  it('has cases that must compile and cases that must not, in every file', () => {
    expect(CASES.sort()).toEqual(['identity.ts', 'loose.ts', 'plan.ts', 'testing.ts', 'typed-events.ts', 'untyped-event.ts'])
    for (const file of CASES) expect({ file, directives: expectErrorCount(file) > 0 }).toEqual({ file, directives: true })
    expect(CASES.reduce((n, file) => n + expectErrorCount(file), 0)).toBeGreaterThanOrEqual(40)
  })

  it('tsc accepts every plain line and rejects every line marked @ts-expect-error', () => {
    const tsc = require.resolve('typescript/bin/tsc')
    const run = spawnSync(process.execPath, [tsc, '-p', join(__dirname, 'tsconfig.json'), '--pretty', 'false', '--listFiles'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    })
    const errors = run.stdout.split('\n').filter((line) => line.includes(' error TS'))
    expect(errors).toEqual([])
    expect(run.status).toBe(0)
    const compiled = run.stdout.split('\n').map((line) => line.trim())
    for (const file of CASES) expect(compiled).toContain(join(__dirname, file))
  })
})
