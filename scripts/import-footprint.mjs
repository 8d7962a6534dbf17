// What `import 'eventrail'` (or `require('eventrail')`, or another entry point) loads, counted
// rather than timed: the files evaluated (the package's own and any other package's) with their
// bytes, and the Node built-in modules loaded on the way beyond what a bare process has. The
// numbers are the same on every run: the budget check (test/package/budgets.test.ts) compares
// them with the budget in docs/decisions.md.
//   node scripts/import-footprint.mjs [specifier=eventrail] [import|require] [cwd=.]
// Prints one line of JSON. The specifier is resolved from `cwd`, as a project installed there sees it.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LOAD_LOG_HOOKS } from './load-log-hook.mjs'

// The child: built-ins from process.moduleLoadList before and after, the public ones only (an
// import of the package's CommonJS code also loads Node's own CommonJS lexer, an internal of the
// loader, not a module the package asks for); files from the hook's log (the ES module stub) and
// from require.cache (the CommonJS files it loads, which the CommonJS loader evaluates unhooked).
const CHILD = `
import { register, createRequire, builtinModules } from 'node:module'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
const [specifier, mode, log, cwd] = process.argv.slice(1)
const require = createRequire(cwd + '/')
if (mode === 'import') register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(LOAD_LOG_HOOKS)}), { data: { log } })
const before = new Set(process.moduleLoadList)
const cached = new Set(Object.keys(require.cache))
let files
if (mode === 'import') {
  await import(specifier)
  files = readFileSync(log, 'utf8').split('\\n').filter(Boolean).map((url) => fileURLToPath(url))
} else {
  require(specifier)
  files = []
}
for (const file of Object.keys(require.cache)) if (!cached.has(file) && !files.includes(file)) files.push(file)
const builtins = process.moduleLoadList
  .filter((m) => !before.has(m) && m.startsWith('NativeModule ') && builtinModules.includes(m.slice(13)))
  .map((m) => m.slice(13))
process.stdout.write(JSON.stringify({ files, builtins }))
`

/**
 * What loading `specifier` as `mode` ('import' or 'require') evaluates, seen from `cwd`:
 * `{ files: [{ path, bytes }], bytes, packageBytes, builtins }`, `packageBytes` counting only the
 * files of the package the specifier names.
 */
export function importFootprint(specifier = 'eventrail', mode = 'import', cwd = process.cwd()) {
  const dir = mkdtempSync(join(tmpdir(), 'eventrail-footprint-'))
  try {
    const log = join(dir, 'loaded.txt')
    const result = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', CHILD, specifier, mode, log, cwd], {
      cwd,
      encoding: 'utf8',
      timeout: 60_000,
    })
    if (result.status !== 0) throw new Error(`measuring ${mode} of ${specifier} failed:\n${result.stderr}`)
    const { files, builtins } = JSON.parse(result.stdout)
    const packageName = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]
    const marker = join('node_modules', packageName) + '/'
    const measured = files.map((path) => ({ path, bytes: statSync(path).size, own: path.includes(marker) }))
    const sum = (list) => list.reduce((total, f) => total + f.bytes, 0)
    return {
      specifier,
      mode,
      files: measured.map(({ path, bytes }) => ({ path: path.slice(path.lastIndexOf('node_modules/') + 13), bytes })),
      modules: measured.length,
      bytes: sum(measured),
      packageBytes: sum(measured.filter((f) => f.own)),
      builtins,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [specifier, mode, cwd] = process.argv.slice(2)
  process.stdout.write(JSON.stringify(importFootprint(specifier, mode, cwd && resolve(cwd))) + '\n')
}
