import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyInstalled, packedPackage } from '../helpers/packed'

// `npm pack`, installed into an empty directory like a user's project (once per run, shared with
// the other files that need it: test/helpers/packed.ts), then used from an .mjs file, a .cjs file
// and TypeScript compiled with moduleResolution node16 and bundler. publint and attw check the same
// tarball. Needs the npm registry for the three runtime dependencies.
const ROOT = join(__dirname, '..', '..')
const FIXTURES = join(__dirname, 'fixtures')
const NODE_TYPES = join(ROOT, 'node_modules', '@types')
const TSC = require.resolve('typescript/bin/tsc')

let work: string
let app: string
let tarball: string
let packedFiles: string[]

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '', output: `${result.stdout}${result.stderr}` }
}

function tsconfig(name: string, compilerOptions: object, files: string[]): string {
  const base = { target: 'ES2022', lib: ['ES2022'], strict: true, skipLibCheck: false, types: ['node'], typeRoots: [NODE_TYPES] }
  writeFileSync(join(app, name), JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, files }, null, 2))
  return name
}

beforeAll(() => {
  // Packed and installed once per run (test/helpers/packed.ts); this file's project is a copy.
  const packed = packedPackage()
  tarball = packed.tarball
  packedFiles = packed.files
  work = mkdtempSync(join(tmpdir(), 'eventrail-pack-'))
  app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  copyInstalled(packed, app)
  for (const file of ['consumer.mjs', 'consumer.cjs', 'consumer.ts', 'main.mts', 'main.cts', 'node10.ts'])
    copyFileSync(join(FIXTURES, file), join(app, file))
}, 240_000)
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('holds the built entry points, one set of declarations, the README and the license, and no sources or tests', () => {
    for (const entry of ['index', 'testing', 'collector', 'plan', 'otel']) {
      for (const ext of ['.js', '.cjs', '.d.ts', '.d.cts']) expect(packedFiles).toContain(`dist/${entry}${ext}`)
    }
    // One set of declarations (the CommonJS build's): each ES module entry's re-exports its `.d.cts`.
    for (const entry of ['index', 'testing', 'collector', 'plan', 'otel']) {
      const esmTypes = readFileSync(join(app, 'node_modules', 'eventrail', 'dist', `${entry}.d.ts`), 'utf8')
      expect(esmTypes).toBe(`export * from './${entry}.cjs'\n`)
    }
    expect(packedFiles.filter((f) => /\.d\.ts$/.test(f) && !/^dist\/(index|testing|collector|plan|otel|context)\.d\.ts$/.test(f))).toEqual([])
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']))
    expect(packedFiles.filter((f) => /^(src|test|examples|bench|scripts)\//.test(f))).toEqual([])
  })

  it('works from an .mjs file: the default transport against a real server, and eventrail/testing', () => {
    const result = run(process.execPath, ['consumer.mjs'], app)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({
      format: 'esm',
      version: expect.any(String),
      paths: ['/v1/alias', '/v1/batch'],
      event: 'From ESM',
      recorded: [{ esm: true }],
      refused: true,
    })
  })

  it('works from a .cjs file', () => {
    const result = run(process.execPath, ['consumer.cjs'], app)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({
      format: 'cjs',
      version: expect.any(String),
      paths: ['/v1/alias', '/v1/batch'],
      event: 'From CJS',
      recorded: [{ cjs: true }],
      refused: true,
    })
  })

  it('type-checks TypeScript with moduleResolution node16 (ESM and CommonJS files), and the output runs', () => {
    const config = tsconfig('tsconfig.node16.json', { module: 'node16', moduleResolution: 'node16', outDir: 'out-node16' }, [
      'consumer.ts',
      'main.mts',
      'main.cts',
    ])
    const tsc = run(process.execPath, [TSC, '-p', config, '--pretty', 'false'], app)
    expect(tsc.output).toBe('')
    expect(tsc.status).toBe(0)

    const esm = run(process.execPath, [join('out-node16', 'main.mjs')], app)
    expect(esm.stderr).toBe('')
    expect(JSON.parse(esm.stdout)).toEqual({ total: 42, email: 'ada@example.com', requests: 2 }) // the first message goes at once, the rest at flush()
    const cjs = run(process.execPath, [join('out-node16', 'main.cjs')], app)
    expect(cjs.stderr).toBe('')
    expect(JSON.parse(cjs.stdout)).toEqual({ n: 1 })
  })

  it('type-checks TypeScript with moduleResolution bundler', () => {
    const config = tsconfig('tsconfig.bundler.json', { module: 'preserve', moduleResolution: 'bundler', noEmit: true }, [
      'consumer.ts',
      'main.mts',
    ])
    const tsc = run(process.execPath, [TSC, '-p', config, '--pretty', 'false'], app)
    expect(tsc.output).toBe('')
    expect(tsc.status).toBe(0)
  })

  it('type-checks TypeScript with moduleResolution node10, which ignores exports: every entry point has its types', () => {
    const config = tsconfig(
      'tsconfig.node10.json',
      { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0', noEmit: true },
      ['node10.ts'],
    )
    const tsc = run(process.execPath, [TSC, '-p', config, '--pretty', 'false'], app)
    expect(tsc.output).toBe('')
    expect(tsc.status).toBe(0)
  })

  it('publint finds no problem, even in strict mode', () => {
    const publint = run(
      process.execPath,
      [join(ROOT, 'node_modules', 'publint', 'src', 'cli.js'), '--strict', join(app, 'node_modules', 'eventrail')],
      ROOT,
    )
    expect(publint.output).toContain('All good!')
    expect(publint.status).toBe(0)
  })

  it('attw finds no problem in any resolution mode: node10, node16 (from ESM and from CJS) and bundler', () => {
    const attw = run(
      process.execPath,
      [join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js'), tarball, '--format', 'json'],
      ROOT,
    )
    expect(attw.status).toBe(0)
    const report = JSON.parse(attw.stdout) as {
      analysis: { problems: unknown[]; entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> }
    }
    expect(report.analysis.problems).toEqual([])
    const typesFound = Object.fromEntries(
      Object.entries(report.analysis.entrypoints).map(([entry, { resolutions }]) => [
        entry,
        Object.fromEntries(
          Object.entries(resolutions).map(([mode, r]) => [mode, r.resolution?.fileName.replace('/node_modules/eventrail/', '')]),
        ),
      ]),
    )
    for (const entry of ['index', 'collector', 'testing', 'plan', 'otel', 'context']) {
      expect(typesFound[entry === 'index' ? '.' : `./${entry}`]).toEqual({
        node10: `dist/${entry}.d.cts`,
        'node16-cjs': `dist/${entry}.d.cts`,
        'node16-esm': `dist/${entry}.d.ts`,
        bundler: `dist/${entry}.d.ts`,
      })
    }
  })
})
