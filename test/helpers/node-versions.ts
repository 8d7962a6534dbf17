import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

// The Node versions the package supports (docs/decisions.md, "Supported Node versions"), each
// installed from the npm registry as the `node-<platform>-<arch>` package (one binary), into a
// cache directory of its own beside Bun and Deno (node_modules/.cache/eventrail-runtimes, or
// EVENTRAIL_RUNTIMES_CACHE, as runtimes.test.ts): installed once, then reused by every run.
// An install goes to a private staging directory and is renamed into place, so that two runs
// never see half a runtime. EVENTRAIL_SKIP_RUNTIMES=1 skips them on purpose.
const ROOT = join(__dirname, '..', '..')
const CACHE = process.env.EVENTRAIL_RUNTIMES_CACHE || join(ROOT, 'node_modules', '.cache', 'eventrail-runtimes')

/** The newest release of each supported line when this was written; bump them together with the CI matrix. */
export const SUPPORTED_NODE_VERSIONS = ['22.23.3', '24.9.0'] as const

/** A Node binary, or why there is none (the test is then skipped, saying so). */
export type NodeBinary = { readonly binary: string; readonly version: string } | { readonly reason: string; readonly version: string }

function packageName(): string | undefined {
  const { platform, arch } = process
  if ((platform !== 'linux' && platform !== 'darwin') || (arch !== 'x64' && arch !== 'arm64')) return undefined
  return `node-${platform}-${arch}`
}

/** Installs `node-<platform>-<arch>@version` unless it is in the cache; returns its binary or why not. */
export function installNode(version: string): NodeBinary {
  if (process.env.EVENTRAIL_SKIP_RUNTIMES === '1') return { reason: 'EVENTRAIL_SKIP_RUNTIMES=1', version }
  const name = packageName()
  if (name === undefined) return { reason: `no Node package for ${process.platform}-${process.arch}`, version }
  const dir = join(CACHE, `${name}@${version}`)
  const binaryIn = (root: string) => join(root, 'node_modules', name, 'bin', 'node')
  if (!existsSync(binaryIn(dir))) {
    const staging = `${dir}.staging-${process.pid}`
    rmSync(staging, { recursive: true, force: true })
    mkdirSync(staging, { recursive: true })
    const spec = `${name}@${version}`
    const args = ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts']
    const install = spawnSync('npm', [...args, '--loglevel=error', spec], {
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    })
    if (install.status !== 0 || !existsSync(binaryIn(staging))) {
      rmSync(staging, { recursive: true, force: true })
      const why = (install.stderr ?? '').split('\n').find((line) => line.startsWith('npm error')) ?? String(install.error ?? install.status)
      return { reason: `npm install ${spec} failed: ${why}`, version }
    }
    try {
      renameSync(staging, dir)
    } catch {
      // Another run renamed its copy into place first: use that one.
      rmSync(staging, { recursive: true, force: true })
    }
  }
  const binary = binaryIn(dir)
  if ((statSync(binary).mode & 0o111) === 0) chmodSync(binary, 0o755)
  const printed = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 })
  if (printed.stdout?.trim() !== `v${version}`) return { reason: `${binary} --version printed ${printed.stdout?.trim()}`, version }
  return { binary, version }
}
