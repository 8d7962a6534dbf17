import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

// `npm pack` and `npm install` of the tarball, done once per jest run and shared by every test file
// that needs the package as a user installs it (test/package/pack.test.ts, budgets.test.ts,
// test/edge/): four packs and two installs took ~20 s of a run. The first file to ask does the work
// in the run's directory (test/helpers/global-setup.cjs makes it, global-teardown.cjs removes it);
// files in other jest workers wait for its result. Each file copies the installed package into its
// own directory when it writes anything beside it; the shared install is read only.
const ROOT = join(__dirname, '..', '..')
const WAIT_LIMIT_MS = 300_000

/** The packed package, installed into an empty project (`app`) like a user's. */
export interface PackedPackage {
  /** The tarball `npm pack` made. */
  readonly tarball: string
  /** The paths `npm pack` put in it. */
  readonly files: string[]
  /** A project with `node_modules/eventrail` installed from the tarball: read only. */
  readonly app: string
}

function npm(args: string[], cwd: string, timeout: number) {
  const env = { ...process.env, npm_config_update_notifier: 'false' }
  const result = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8', timeout, env })
  return { status: result.status, stdout: result.stdout ?? '', output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ?? ''}` }
}

function packAndInstall(dir: string): PackedPackage {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  const pack = npm(['pack', '--json', '--pack-destination', dir], ROOT, 120_000)
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.output}`)
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[]
  const tarball = join(dir, info.filename)
  const app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const args = ['install', '--no-audit', '--no-fund', '--no-package-lock', '--prefer-offline', '--loglevel=error', tarball]
  const install = npm(args, app, 180_000)
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.output}`)
  return { tarball, files: info.files.map((f) => f.path), app }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * The run's packed and installed package: made by the first caller of the run, waited for by the
 * others (synchronous, so that a `beforeAll` stays as it was). A failure is reported to each caller.
 */
export function packedPackage(): PackedPackage {
  const runDir = process.env.EVENTRAIL_TEST_RUN_DIR
  if (!runDir || !existsSync(runDir))
    throw new Error('EVENTRAIL_TEST_RUN_DIR is not set: run the tests through jest.config.cjs (its globalSetup)')
  const dir = join(runDir, 'packed')
  const result = join(runDir, 'packed.json')
  try {
    mkdirSync(dir) // the lock: one caller succeeds
  } catch {
    const deadline = Date.now() + WAIT_LIMIT_MS
    while (!existsSync(result)) {
      if (Date.now() > deadline) throw new Error(`the packed package was not ready within ${WAIT_LIMIT_MS} ms`)
      sleep(100)
    }
    const shared = JSON.parse(readFileSync(result, 'utf8')) as PackedPackage | { error: string }
    if ('error' in shared) throw new Error(shared.error)
    return shared
  }
  let outcome: PackedPackage | { error: string }
  try {
    outcome = packAndInstall(dir)
  } catch (error) {
    outcome = { error: (error as Error).message }
  }
  writeFileSync(`${result}.tmp`, JSON.stringify(outcome))
  renameSync(`${result}.tmp`, result)
  if ('error' in outcome) throw new Error(outcome.error)
  return outcome
}

/** Copies the installed package to `app/node_modules/eventrail`, for a test that writes beside it. */
export function copyInstalled(packed: PackedPackage, app: string): void {
  cpSync(join(packed.app, 'node_modules', 'eventrail'), join(app, 'node_modules', 'eventrail'), { recursive: true })
}
