import { runNode } from '../helpers/run-node'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { createCollector, type Collector } from '../../src/collector'
import { blocksOf, PAGES, ROOT, type DocBlock } from './doc-blocks'

// Issue 30: docs as tests, run. Every ```ts and ```js block of the README and docs/*.md that is
// neither an illustration nor marked `<!-- no-run: why -->` is transpiled and run by Node, as
// written, against a local collector: `eventrail` is the built package, with one change made by
// this test's copy of it, the `host` of every client (a page's blocks send to the real service or
// to a fixed port; here they send to the collector). A block passes when its process exits with
// 0 and writes no error; the collector must have received what the blocks sent.
const DIST = join(ROOT, 'dist')
const CHILD_LIMIT_MS = 15_000
// What the blocks import besides eventrail and node:, linked into the run's node_modules.
const PACKAGES = ['zod', 'express', 'undici', '@opentelemetry', 'fastify', 'koa', 'hono', '@hono', 'next']

type Block = DocBlock

const BLOCKS = PAGES.flatMap(blocksOf)
const RUN = BLOCKS.filter((b) => !b.directives.some((d) => d === 'illustration' || d.startsWith('no-run')))

/** The package as the blocks import it: dist/, with every client's `host` set to the collector's. */
function writeWrapper(dir: string): void {
  const pkg = join(dir, 'node_modules', 'eventrail')
  mkdirSync(pkg, { recursive: true })
  const entries = ['collector', 'testing', 'plan', 'otel', 'context']
  const exports: Record<string, unknown> = { '.': { import: './index.mjs', require: './index.cjs' } }
  for (const entry of entries) {
    exports[`./${entry}`] = { import: `./${entry}.mjs`, require: `./${entry}.cjs` }
    writeFileSync(join(pkg, `${entry}.mjs`), `export * from ${JSON.stringify(join(DIST, `${entry}.js`))}\n`)
    writeFileSync(join(pkg, `${entry}.cjs`), `module.exports = require(${JSON.stringify(join(DIST, `${entry}.cjs`))})\n`)
  }
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'eventrail', exports }))
  const subclass = `class Analytics extends real.Analytics {
  constructor(writeKey, options) { super(writeKey, { ...options, host: process.env.DOC_COLLECTOR }) }
}`
  const esm = JSON.stringify(join(DIST, 'index.js'))
  writeFileSync(join(pkg, 'index.mjs'), `import * as real from ${esm}\nexport * from ${esm}\nexport ${subclass}\n`)
  writeFileSync(
    join(pkg, 'index.cjs'),
    `const real = require(${JSON.stringify(join(DIST, 'index.cjs'))})\n${subclass}\nmodule.exports = { ...real, Analytics }\n`,
  )
  for (const name of PACKAGES) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name))
}

/** Writes a page's blocks as files (at the path a block's first line names, else one of its own); the ones to run. */
function writePage(dir: string, blocks: Block[]): { block: Block; file: string }[] {
  return blocks.map((block, i) => {
    const commonJs = /\brequire\(/.test(block.code)
    const named = /^\/\/ ([\w./-]+)\.([mc]?)[jt]s\b/.exec(block.code)
    const file = join(dir, named !== null ? `${named[1]}.${named[2]}js` : `block-${i}.${commonJs ? 'cjs' : 'mjs'}`)
    const code = block.ts
      ? ts.transpileModule(block.code, {
          compilerOptions: { module: commonJs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText
      : block.code
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, code)
    return { block, file }
  })
}

async function run(file: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { code, output } = await runNode(file, CHILD_LIMIT_MS, { cwd, env })
  return { code, output }
}

let work: string
let collector: Collector
beforeAll(async () => {
  if (!existsSync(join(DIST, 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  work = mkdtempSync(join(tmpdir(), 'eventrail-doc-blocks-'))
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }))
  writeWrapper(work)
  collector = await createCollector()
})
afterAll(async () => {
  await collector?.close()
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

it('runs most blocks', () => {
  expect(RUN.length).toBeGreaterThan(BLOCKS.length / 2)
})

describe.each(PAGES.filter((page) => RUN.some((b) => b.page === page)))('the code blocks of %s', (page) => {
  it('run as written against a local collector (unless marked no-run or illustration)', async () => {
    const dir = join(work, page.replace(/[/.]/g, '_'))
    const failed: string[] = []
    for (const { block, file } of writePage(
      dir,
      RUN.filter((b) => b.page === page),
    )) {
      // Blocks run one after the other, in the page's order: a page's later block may import an
      // earlier one's file (tracking-plans.md's src/plan.ts).
      const env = { DOC_COLLECTOR: collector.url, WRITE_KEY: 'doc-write-key', HTTPS_PROXY: 'http://127.0.0.1:9', GATEWAY_TOKEN: 't' }
      const { code, output } = await run(file, dir, env)
      if (code !== 0 || /\b\w*Error\b/.test(output)) failed.push(`${page}:${block.line} exited with ${code}:\n${output}`)
    }
    expect(failed).toEqual([])
  }, 60_000)
})

it('the collector received what the blocks sent, all accepted', () => {
  expect(collector.messages.length).toBeGreaterThan(0)
  expect(collector.messages.filter((m) => m.verdict !== 'accepted')).toEqual([])
})
