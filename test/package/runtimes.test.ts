import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCollector, type Collector } from '../../src/collector'

// The `fetch` option is the seam for other runtimes. The same script (fixtures/runtime-check.mjs)
// runs the built client in Node, Bun and Deno: with the runtime's global fetch, with gzip, with
// eventrail/testing, and last with the default transport (node:http in Node, the global fetch
// elsewhere). Bun and Deno come from their npm packages (one platform binary each), installed once
// into node_modules/.cache/eventrail-runtimes
// (or EVENTRAIL_RUNTIMES_CACHE), where the next run finds them: a second `npm test` downloads
// nothing (the OS temp directory, used before, is emptied by many CI images and by reboots, and
// the ~200 MB were downloaded again). Each runtime has its own directory: npm prunes what it did not install itself, so a
// second install into a shared prefix deletes the first runtime. An install goes to a private
// staging directory first and is renamed into place, so two test runs never see half a runtime.
// When a runtime cannot be installed (no registry, another platform) its test is skipped and the
// title says why. EVENTRAIL_SKIP_RUNTIMES=1 skips them on purpose.
const ROOT = join(__dirname, '..', '..')
const SCRIPT = join(__dirname, 'fixtures', 'runtime-check.mjs')
// Where the script's disk-spool check makes its directory (given to it: Deno reads no env here).
const SPOOL_ROOT = mkdtempSync(join(tmpdir(), 'eventrail-runtime-spool-'))
afterAll(() => rmSync(SPOOL_ROOT, { recursive: true, force: true }))
const CACHE = process.env.EVENTRAIL_RUNTIMES_CACHE || join(ROOT, 'node_modules', '.cache', 'eventrail-runtimes')
const BUN_VERSION = '1.4.5'
const DENO_VERSION = '2.9.6'

type RuntimeName = 'bun' | 'deno'

interface Runtime {
  command: string[] | undefined
  env: NodeJS.ProcessEnv
  reason: string
}

interface RuntimePackage {
  name: string
  version: string
  /** The binary's path inside the package. */
  binary: string
}

function isGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined
  return typeof report?.header?.glibcVersionRuntime === 'string'
}

function runtimePackage(name: RuntimeName): RuntimePackage | string {
  const { platform, arch } = process
  if ((platform !== 'linux' && platform !== 'darwin') || (arch !== 'x64' && arch !== 'arm64'))
    return `no ${name} package for ${platform}-${arch}`
  if (name === 'bun') {
    const libc = platform === 'linux' && !isGlibc() ? '-musl' : ''
    return {
      name: `@oven/bun-${platform}-${arch === 'arm64' ? 'aarch64' : 'x64'}${libc}`,
      version: BUN_VERSION,
      binary: join('bin', 'bun'),
    }
  }
  if (platform === 'linux' && !isGlibc()) return 'no deno package for musl libc'
  return { name: `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`, version: DENO_VERSION, binary: 'deno' }
}

function lastLine(text: string | null | undefined): string {
  return (text ?? '').trim().split('\n').pop() ?? ''
}

/** npm's first error lines, without the pointer to its log file. */
function npmError(stderr: string | null | undefined): string {
  const lines = (stderr ?? '').split('\n').filter((line) => line.startsWith('npm error') && !line.includes('complete log'))
  return lines.slice(0, 2).join('; ')
}

/** Installs `pkg` into its own cache directory unless it is there; returns the binary or why not. */
function installPackage(pkg: RuntimePackage): { binary: string } | { reason: string } {
  const dir = join(CACHE, `${pkg.name.replace('/', '+')}@${pkg.version}`)
  const binaryIn = (root: string) => join(root, 'node_modules', ...pkg.name.split('/'), pkg.binary)
  if (!existsSync(binaryIn(dir))) {
    const staging = `${dir}.staging-${process.pid}`
    rmSync(staging, { recursive: true, force: true })
    mkdirSync(staging, { recursive: true })
    const spec = `${pkg.name}@${pkg.version}`
    const install = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        staging,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        spec,
      ],
      { encoding: 'utf8', timeout: 180_000, env: { ...process.env, npm_config_update_notifier: 'false' } },
    )
    if (install.status !== 0 || !existsSync(binaryIn(staging))) {
      rmSync(staging, { recursive: true, force: true })
      return { reason: `npm install ${spec} failed: ${npmError(install.stderr) || String(install.error ?? `exit ${install.status}`)}` }
    }
    try {
      renameSync(staging, dir)
    } catch {
      // Another run renamed its copy into place first: use that one.
      rmSync(staging, { recursive: true, force: true })
    }
  }
  const binary = binaryIn(dir)
  if (!existsSync(binary)) return { reason: `${binary} is missing` }
  if ((statSync(binary).mode & 0o111) === 0) chmodSync(binary, 0o755)
  return { binary }
}

function installRuntime(name: RuntimeName): Runtime {
  const none = (reason: string): Runtime => ({ command: undefined, env: {}, reason })
  if (process.env.EVENTRAIL_SKIP_RUNTIMES === '1') return none('EVENTRAIL_SKIP_RUNTIMES=1')
  const pkg = runtimePackage(name)
  if (typeof pkg === 'string') return none(pkg)
  const installed = installPackage(pkg)
  if ('reason' in installed) return none(installed.reason)
  const env: NodeJS.ProcessEnv =
    name === 'deno'
      ? { ...process.env, DENO_DIR: join(CACHE, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }
      : { ...process.env, NO_COLOR: '1' }
  const version = spawnSync(installed.binary, ['--version'], { encoding: 'utf8', env, timeout: 30_000 })
  if (version.status !== 0) return none(`${name} --version failed: ${lastLine(version.stderr) || String(version.error)}`)
  if (!version.stdout.includes(pkg.version)) return none(`${name} --version printed ${lastLine(version.stdout)}, not ${pkg.version}`)
  // Deno: network access to the loopback collector only; it reads local modules without a
  // permission. It uses the repository's node_modules as it is (no install, no lock file), and
  // fails rather than asks when a permission is missing. The disk spool's check reads and writes
  // one directory (SPOOL_ROOT), loads dist/spool.cjs, and reads the host name (a part's owner).
  const command =
    name === 'bun'
      ? [installed.binary]
      : [
          installed.binary,
          'run',
          '--no-prompt',
          '--no-lock',
          '--node-modules-dir=manual',
          '--allow-net=127.0.0.1',
          `--allow-read=${join(ROOT, 'dist')},${SPOOL_ROOT}`,
          `--allow-write=${SPOOL_ROOT}`,
          '--allow-sys=hostname',
        ]
  return { command, env, reason: '' }
}

const bun = installRuntime('bun')
const deno = installRuntime('deno')

let collector: Collector
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
})
beforeEach(async () => {
  collector = await createCollector()
})
afterEach(() => collector.close())

interface Report {
  runtime: string
  recorded: number
  defaultSendsWith: string
  defaultTransport: string
}

// A hung runtime is killed after CHILD_LIMIT_MS, well inside the test's own timeout, so the child
// and its timer are always gone when the test ends: nothing keeps jest from exiting.
const CHILD_LIMIT_MS = 60_000
const TEST_TIMEOUT_MS = 90_000

// Asynchronous: the collector runs in this process and must answer while the script runs.
function check(command: string[], env: NodeJS.ProcessEnv = process.env): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      command[0],
      [
        ...command.slice(1),
        SCRIPT,
        collector.url,
        join(SPOOL_ROOT, command[0].includes('deno') ? 'deno' : command[0].includes('bun') ? 'bun' : 'node'),
      ],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    // A spawn that fails (ENOENT) emits 'error' and never 'exit': the timer must be cleared here too.
    // 'close', not 'exit': both output streams have ended, so the last line is complete.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code !== 0) return reject(new Error(`${command[0]} exited with ${code ?? signal}:\n${stdout}${stderr}`))
      try {
        resolve(JSON.parse(lastLine(stdout)) as Report)
      } catch {
        reject(new Error(`${command[0]} printed no report:\n${stdout}${stderr}`))
      }
    })
  })
}

function expectEverythingArrived(): void {
  const arrived = collector.messages.map((r) => [r.writeKey, r.path, r.type, r.verdict, r.message.event ?? null])
  expect(arrived).toEqual(
    expect.arrayContaining([
      ['GLOBAL_FETCH', '/v1/batch', 'identify', 'accepted', null],
      ['GLOBAL_FETCH', '/v1/batch', 'track', 'accepted', 'Runtime Checked'],
      ['GLOBAL_FETCH', '/v1/alias', 'alias', 'accepted', null],
      ['GZIP', '/v1/batch', 'track', 'accepted', 'Compressed'],
      ['DEFAULT_FETCH', '/v1/batch', 'track', 'accepted', 'Default Transport'],
      ['SPOOL', '/v1/batch', 'track', 'accepted', 'Spooled'],
    ]),
  )
  expect(arrived.filter(([key]) => key === 'SPOOL')).toHaveLength(2)
  expect(arrived).toHaveLength(7)
  const gzipped = collector.requests.filter((r) => r.headers['content-encoding'] === 'gzip')
  expect(gzipped).toHaveLength(1)
}

function skipped(runtime: Runtime): string {
  return runtime.reason && ` (skipped: ${runtime.reason})`
}

describe('runtimes', () => {
  it(
    'Node: runs with the global fetch, with gzip, the recorder, the disk spool, eventrail/context, and by default with node:http',
    async () => {
      const report = await check([process.execPath])
      expect(report).toEqual({
        runtime: `node ${process.versions.node}`,
        recorded: 1,
        defaultSendsWith: 'node:http',
        defaultTransport: 'ok',
        // The disk spool: two messages wait on disk while the service is down, and a second client sends them.
        spool: { closedDown: { waiting: 2 }, replayed: 2, replayedAtClose: { waiting: 0 } },
        // eventrail/context on the runtime's AsyncLocalStorage: 20 concurrent requests, none mixed.
        context: { recorded: 20, mixed: 0 },
      })
      expectEverythingArrived()
    },
    TEST_TIMEOUT_MS,
  )

  const bunTest = bun.command ? it : it.skip
  bunTest(
    `Bun ${BUN_VERSION}: runs with Bun's fetch, with gzip, the recorder, the disk spool, eventrail/context, and by default with Bun's fetch${skipped(bun)}`,
    async () => {
      const report = await check(bun.command as string[], bun.env)
      expect(report).toEqual({
        runtime: `bun ${BUN_VERSION}`,
        recorded: 1,
        defaultSendsWith: 'global fetch',
        defaultTransport: 'ok',
        // The disk spool: two messages wait on disk while the service is down, and a second client sends them.
        spool: { closedDown: { waiting: 2 }, replayed: 2, replayedAtClose: { waiting: 0 } },
        // eventrail/context on the runtime's AsyncLocalStorage: 20 concurrent requests, none mixed.
        context: { recorded: 20, mixed: 0 },
      })
      expectEverythingArrived()
    },
    TEST_TIMEOUT_MS,
  )

  const denoTest = deno.command ? it : it.skip
  denoTest(
    `Deno ${DENO_VERSION}: runs with Deno's fetch, with gzip, the recorder, the disk spool, eventrail/context, and by default with Deno's fetch${skipped(deno)}`,
    async () => {
      const report = await check(deno.command as string[], deno.env)
      expect(report).toEqual({
        runtime: `deno ${DENO_VERSION}`,
        recorded: 1,
        defaultSendsWith: 'global fetch',
        defaultTransport: 'ok',
        // The disk spool: two messages wait on disk while the service is down, and a second client sends them.
        spool: { closedDown: { waiting: 2 }, replayed: 2, replayedAtClose: { waiting: 0 } },
        // eventrail/context on the runtime's AsyncLocalStorage: 20 concurrent requests, none mixed.
        context: { recorded: 20, mixed: 0 },
      })
      expectEverythingArrived()
    },
    TEST_TIMEOUT_MS,
  )
})
