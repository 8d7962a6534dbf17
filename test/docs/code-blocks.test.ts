import { existsSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { blocksOf, PAGES, ROOT, type DocBlock } from './doc-blocks'

// Issue 30: docs as tests. Every ```ts and ```js block of the README and docs/*.md is
// type-checked as a module of its own, the way a fresh app would compile it: the tsconfig.json of
// `tsc --init` (strict, nodenext, exactOptionalPropertyTypes …) with Node's types, `eventrail`
// resolved through the package's exports to the built declarations. A block that is only an
// illustration (it leaves parts out on purpose) is marked `<!-- illustration -->` on the line
// before it and is not checked; a block for an edge runtime is marked `<!-- edge -->` and checked
// with that tsconfig.json unchanged (the DOM's types, no Node types); a known failure waiting for
// a fix in src/ is marked `<!-- fails: TS1234 why -->` and must keep failing with that error until
// the marker goes. Markers combine: `<!-- edge; fails: TS2322 why -->`.
// Names a guide uses without defining them (an `analytics` made earlier on the page, "your code")
// and the platform modules not installed here (`@vercel/functions` …) are declared in PRELUDE.
interface Block {
  page: string
  line: number
  lang: 'ts' | 'js'
  code: string
  illustration: boolean
  /** Checked as for an edge runtime: the DOM's types, no Node types. */
  edge?: boolean
  /** A known failure, `<!-- fails: TS1234 why -->` before the block: that error is expected, until it is fixed. */
  fails?: string
}

function asBlock(b: DocBlock): Block {
  return {
    page: b.page,
    line: b.line,
    lang: b.ts ? 'ts' : 'js',
    code: b.code,
    illustration: b.directives.includes('illustration'),
    edge: b.directives.includes('edge'),
    fails: b.directives.map((d) => /^fails: (TS\d+)/.exec(d)?.[1]).find((code) => code !== undefined),
  }
}

const BLOCKS = PAGES.flatMap(blocksOf).map(asBlock)
const CHECKED = BLOCKS.filter((b) => !b.illustration)

// What the pages take as given: made earlier on the page, the reader's own code ("your code"), or
// a platform module that is not installed here. A script, not a module: its declarations are global.
const PRELUDE = `
declare const analytics: import('eventrail').Analytics
declare const app: import('express').Express
type ShopEvents = {
  'Order Completed': { orderId: string; total: number; currency: 'EUR' | 'USD' }
  'Signed Up': { plan: 'free' | 'pro' }
}
declare function checkout(analytics: import('eventrail').Analytics<ShopEvents>, order: { userId: string; orderId: string; total: number }): Promise<void>
declare function signUp(analytics: import('eventrail').Analytics, user: { id: string; email: string }): void
declare const db: { query(sql: string): AsyncIterable<Record<string, any>> }
declare module '@vercel/functions' {
  export function waitUntil(promise: Promise<unknown>): void
}
declare module 'koa' {
  class Koa {
    use(middleware: (ctx: { req: import('node:http').IncomingMessage; body: unknown; append(name: string, value: string): void }, next: () => Promise<unknown>) => unknown): this
    listen(port: number, host: string, listening: () => void): import('node:http').Server
  }
  export default Koa
}
declare module 'cloudflare:workers' {
  export function waitUntil(promise: Promise<unknown>): void
}
declare module 'node-fetch' {
  const fetch: (url: string, init?: object) => Promise<{ status: number; headers: { get(name: string): string | null }; arrayBuffer(): Promise<ArrayBuffer> }>
  export default fetch
}
declare module 'https-proxy-agent' {
  export class HttpsProxyAgent {
    constructor(proxy: string, options?: { keepAlive?: boolean })
  }
}
`

/** Where diagnostics outside any block go. */
const HARNESS: Block = { page: '(harness)', line: 0, lang: 'ts', code: '', illustration: true }

/**
 * The file a block is checked as: the path its first line names (`// src/plan.ts: …`), so that the
 * blocks of one page can import each other as a reader's files would, else one of its own.
 */
function fileOf(block: Block, index: number): string {
  const dir = join(ROOT, '.doc-blocks', block.page.replace(/[/.]/g, '_'))
  const named = /^\/\/ ([\w./-]+\.[mc]?[jt]s)\b/.exec(block.code)
  if (named !== null) return join(dir, named[1])
  // A CommonJS block (`import … = require`, `require(…)`) is checked as a CommonJS file.
  const commonJs = /\brequire\(/.test(block.code)
  return join(dir, `block-${index}.${block.lang === 'ts' ? (commonJs ? 'cts' : 'mts') : commonJs ? 'cjs' : 'mjs'}`)
}

/** Type-checks the blocks as one program: each block's diagnostics, as `page:line: message`. */
function typeCheck(blocks: Block[], edge = false): Map<Block, string[]> {
  const files = new Map<string, string>([[join(ROOT, '.doc-blocks', 'prelude.d.ts'), PRELUDE]])
  const byFile = new Map<string, Block>()
  blocks.forEach((block, i) => {
    const file = fileOf(block, i)
    files.set(file, `${block.code}\nexport {}\n`)
    byFile.set(file, block)
  })
  // The tsconfig.json of `tsc --init` (TypeScript 6), with Node's types (and jest's for the test
  // examples) added: what a fresh app has. For an edge runtime, as it is: `types: []`, and the
  // default lib of `target: esnext`, with the DOM. `eventrail` resolves as in an app, through the
  // package's exports, to the built declarations in dist/.
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ESNext,
    types: edge ? [] : ['node', 'jest'],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    strict: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  host.readFile = (name) => files.get(name) ?? readFile(name)
  host.fileExists = (name) => files.has(name) || fileExists(name)
  const directoryExists = host.directoryExists?.bind(host)
  host.directoryExists = (name) => [...files.keys()].some((file) => file.startsWith(name + '/')) || (directoryExists?.(name) ?? true)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name)!, version, true) : getSourceFile(name, version, ...rest)
  const program = ts.createProgram([...files.keys()], options, host)
  const result = new Map<Block, string[]>([...blocks, HARNESS].map((b) => [b, []]))
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const block = diagnostic.file && byFile.get(diagnostic.file.fileName)
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (block === undefined || block === null) {
      // A diagnostic outside the blocks (the prelude, the library) is a failure of the harness.
      result.get(HARNESS)!.push(`${diagnostic.file?.fileName ?? 'options'}: ${text}`)
      continue
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    result.get(block)!.push(`${block.page}:${block.line + line}: TS${diagnostic.code} ${text}`)
  }
  return result
}

// A block with a mistake, checked in the same program: it must fail, or the harness checks nothing.
const PLANTED: Block = {
  page: 'planted.md',
  line: 1,
  lang: 'ts',
  code: "import { Analytics } from 'eventrail'\nnew Analytics('k', { flushInteval: 1 })",
  illustration: false,
}

let diagnostics: Map<Block, string[]>
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'index.d.ts'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  const edge = typeCheck(
    CHECKED.filter((b) => b.edge),
    true,
  )
  diagnostics = typeCheck([...CHECKED.filter((b) => !b.edge), PLANTED])
  for (const [block, errors] of edge) diagnostics.set(block, block === HARNESS ? [...diagnostics.get(HARNESS)!, ...errors] : errors)
}, 60_000)

it('finds the code blocks of the README and the guides, and most are checked', () => {
  expect(BLOCKS.length).toBeGreaterThan(20)
  expect(CHECKED.length).toBeGreaterThan(BLOCKS.length / 2)
})

it('a block with a mistake fails (a planted one)', () => {
  expect(diagnostics.get(PLANTED)?.join('\n')).toMatch(/TS2353|TS2561/)
})

describe.each(PAGES.filter((page) => CHECKED.some((b) => b.page === page)))('the code blocks of %s', (page) => {
  it('type-check (strict, Node types) unless marked as an illustration', () => {
    const errors = CHECKED.filter((b) => b.page === page && b.fails === undefined).flatMap((b) => diagnostics.get(b) ?? [])
    expect(errors).toEqual([])
  })

  it('still fail where marked as a known failure (remove the marker once it compiles)', () => {
    const fixed = CHECKED.filter((b) => b.page === page && b.fails !== undefined)
      .filter((b) => !(diagnostics.get(b) ?? []).some((d) => d.includes(`${b.fails} `)))
      .map((b) => `${b.page}:${b.line} compiles now (or fails otherwise): ${(diagnostics.get(b) ?? []).join('; ') || 'no error'}`)
    expect(fixed).toEqual([])
  })
})

it('nothing outside the blocks fails to compile (the prelude, the library)', () => {
  expect(diagnostics.get(HARNESS)).toEqual([])
})
