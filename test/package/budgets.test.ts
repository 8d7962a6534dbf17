import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packedPackage } from '../helpers/packed'

// The budgets of docs/decisions.md ("Budgets"), checked on what a user installs: `npm pack`,
// installed into an empty project. Sizes and bytes are deterministic, so they are asserted here;
// times are not (they stay in the benchmark). A budget that no longer holds fails with the
// measurement: raise it in docs/decisions.md only with a reason written there.
const ROOT = join(__dirname, '..', '..')
const FOOTPRINT = join(ROOT, 'scripts', 'import-footprint.mjs')

interface Footprint {
  files: { path: string; bytes: number }[]
  bytes: number
  builtins: string[]
}

/** The budgets table of docs/decisions.md: `| \`id\` | what | limit | … |`, limits in KB or a count. */
function budgets(): Record<string, number> {
  const text = readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8')
  const rows = [...text.matchAll(/^\s*\| `([a-z-]+)`\s*\|[^|\n]*\|\s*([\d,]+) ?(KB)?\s*\|/gm)]
  return Object.fromEntries(rows.map(([, id, limit, unit]) => [id, Number(limit.replace(/,/g, '')) * (unit === 'KB' ? 1024 : 1)]))
}

/** Apparent bytes of everything under `dir`, directories included (as `du --apparent-size -b`). */
function apparentBytes(dir: string): number {
  let total = lstatSync(dir).size
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    total += entry.isDirectory() ? apparentBytes(path) : lstatSync(path).size
  }
  return total
}

function footprint(mode: 'import' | 'require'): Footprint {
  const result = spawnSync(process.execPath, [FOOTPRINT, 'eventrail', mode, app], { encoding: 'utf8', timeout: 60_000 })
  if (result.status !== 0) throw new Error(`import-footprint failed:\n${result.stderr}`)
  return JSON.parse(result.stdout) as Footprint
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
let app: string
let limits: Record<string, number>

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.cjs'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  limits = budgets()
  // Packed and installed once per run (test/helpers/packed.ts); only read here.
  app = packedPackage().app
}, 240_000)

describe('budgets (docs/decisions.md)', () => {
  it('the table has every budget', () => {
    expect(Object.keys(limits).sort()).toEqual(['import-builtins', 'import-bytes', 'installed-size', 'require-builtins', 'require-bytes'])
  })

  it('installed size: npm install of the packed package, dependencies included', () => {
    const bytes = apparentBytes(join(app, 'node_modules'))
    const packages = readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.'))
    expect({ bytes: kb(bytes), within: bytes <= limits['installed-size'], packages }).toEqual({
      bytes: kb(bytes),
      within: true,
      packages: ['eventrail'],
    })
  })

  it.each([
    ['import', 'import-bytes', 'import-builtins'],
    ['require', 'require-bytes', 'require-builtins'],
  ] as const)("what %s of 'eventrail' evaluates: its bytes, and no Node built-in", (mode, bytesId, builtinsId) => {
    const measured = footprint(mode)
    const files = measured.files.map((f) => `${f.path} ${f.bytes}`)
    // Every file is the package's own: a dependency loaded at import would show here.
    expect(measured.files.filter((f) => !f.path.startsWith('eventrail/'))).toEqual([])
    expect({ bytes: kb(measured.bytes), within: measured.bytes <= limits[bytesId], files }).toEqual({
      bytes: kb(measured.bytes),
      within: true,
      files,
    })
    expect(measured.builtins.length).toBeLessThanOrEqual(limits[builtinsId])
  })

  it('import and require load the same CommonJS files (import adds its one-line stub), none of the parts loaded on first use', () => {
    const [imported, required] = [footprint('import'), footprint('require')].map((m) => m.files.map((f) => f.path))
    expect(imported[0]).toBe('eventrail/dist/index.js')
    expect(imported.slice(1).sort()).toEqual([...required].sort())
    // gzip, the import engine, the spool and the bin's commands load on first use only.
    expect(required.filter((path) => /gzip|import-messages|spool|command/.test(path))).toEqual([])
  })
})
