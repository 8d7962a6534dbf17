// Scenario 4: what installing a client puts on disk, its runtime dependency closure: the package
// itself and every package its `dependencies` (and optional ones) pull in, resolved the way Node
// resolves them from node_modules. Sizes are the bytes of the files (a package's own nested
// node_modules are counted as the packages they hold, once each).

import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

function dirBytes(dir) {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += dirBytes(path)
    else if (entry.isFile()) total += statSync(path).size
  }
  return total
}

/** Finds `name` as Node would from a package in `fromDir`: its node_modules, then each parent's. */
function resolvePackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * The closure of `rootDir`'s runtime dependencies. `rootBytes` is the size of the root package
 * as installed (the caller knows what it publishes).
 */
export function dependencyClosure(rootDir, rootBytes) {
  const seen = new Map()
  const missing = []
  const visit = (dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      const depDir = resolvePackageDir(dep, dir)
      if (depDir === undefined) {
        missing.push(dep)
        continue
      }
      if (seen.has(depDir)) continue
      seen.set(depDir, dirBytes(depDir))
      visit(depDir)
    }
  }
  visit(rootDir)
  let bytes = rootBytes ?? dirBytes(rootDir)
  for (const size of seen.values()) bytes += size
  return { packages: 1 + seen.size, bytes, missing }
}

/** Bytes of the files `npm pack` would publish for the package in `dir` (what an install unpacks). */
export function publishedBytes(dir) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return JSON.parse(out)[0].unpackedSize
}
