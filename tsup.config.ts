import { readdir, readFile, writeFile } from 'node:fs/promises'
import { defineConfig, type Options } from 'tsup'
import type { Plugin } from 'esbuild'
import { dedentFile } from './scripts/dedent-build.mjs'

// The maps stay in dist/ for local profiling (bench/lib/profile.mjs reads them) but are not
// published ("!dist/**/*.map" in package.json): a published file must not point at a map that is
// not there (debuggers and bundlers warn about the missing file), so the comments go. Each build
// (ESM, CommonJS) strips its own files: the two run at once. Each file also loses its indentation
// (scripts/dedent-build.mjs): the build keeps its line breaks, so that an uncaught error prints one
// readable line, not a whole module (docs/decisions.md, "Readable errors").
function dropSourceMapComments(extension: RegExp): () => Promise<void> {
  return async () => {
    for (const name of await readdir('dist')) {
      if (!extension.test(name)) continue
      const file = `dist/${name}`
      dedentFile(file)
      const text = await readFile(file, 'utf8')
      // Every such line: the tree-shaking pass leaves one of its own above tsup's. The build
      // drops comments, so the bundler hints of the one run-time import() (src/platform/runtime.ts,
      // importAtRunTime: its specifier is a variable) are put back.
      const stripped = text
        .replace(/^\/\/# sourceMappingURL=.*\n?/gm, '')
        .replace(/\bimport\((?=specifier\))/g, 'import(/* webpackIgnore: true */ /* @vite-ignore */ ')
      if (stripped !== text) await writeFile(file, stripped)
    }
  }
}

const LIBRARY_ENTRIES = {
  index: 'src/index.ts',
  collector: 'src/collector/index.ts',
  testing: 'src/testing/index.ts',
  plan: 'src/plan/index.ts',
  otel: 'src/otel/index.ts',
  context: 'src/context-entry.ts',
}

/**
 * The entry points built as ES modules too: the main one (bundlers for Workers and the Edge Runtime
 * take it, and its import-time budgets are the ESM build's) and the two a client in those runtimes
 * uses beside it. The others (collector, otel, the CLI, the import engine) are Node-only code that
 * exists once, as CommonJS: their ES module entry re-exports the `.cjs` in one line (esmStubs),
 * which Node's CommonJS lexer reads for the named exports (docs/decisions.md, "One build of the
 * Node-only code").
 */
const ESM_ENTRIES = { index: LIBRARY_ENTRIES.index, testing: LIBRARY_ENTRIES.testing, plan: LIBRARY_ENTRIES.plan }
const CJS_ONLY = Object.keys(LIBRARY_ENTRIES).filter((name) => !(name in ESM_ENTRIES))

/**
 * One set of declarations serves both builds: the CommonJS build emits them (`.d.cts`, named exports
 * only, no default export), and each ES module entry's `.d.ts` re-exports its `.d.cts` in one line.
 * Two full sets (~95 KB each) were a tenth of the installed package; attw finds the types in every
 * resolution mode either way (test/package/pack.test.ts).
 */
function declarationStubs(): Promise<void> {
  return Promise.all(Object.keys(LIBRARY_ENTRIES).map((name) => writeFile(`dist/${name}.d.ts`, `export * from './${name}.cjs'\n`))).then(
    () => undefined,
  )
}

/** The ES module entry of a CommonJS-only entry point: its named exports, re-exported. */
function esmStubs(): Promise<void> {
  return Promise.all(CJS_ONLY.map((name) => writeFile(`dist/${name}.js`, `export * from './${name}.cjs'\n`))).then(() => undefined)
}

/**
 * The import engine, loaded on the first `importMessages()` call, is the CommonJS build's in both:
 * the ES module build's `import()` of it is left to the run time, as `./import-messages.cjs`.
 */
const engineFromCommonJS: Plugin = {
  name: 'engine-from-commonjs',
  setup(build) {
    build.onResolve({ filter: /^\.\/import\/import-messages$/ }, () => ({ path: './import-messages.cjs', external: true }))
  },
}

const common: Options = {
  dts: true,
  sourcemap: true,
  // `npm run build` empties dist/ first: the two builds run at once and must not clean each other's files.
  clean: false,
  // The supported Node versions: 22 and 24 (docs/decisions.md). Node 20 reached its end of life.
  target: 'node22',
  platform: 'node',
  // Shared chunks: one copy of the error classes, so `instanceof` works across entry points.
  splitting: true,
  treeshake: true,
  // Syntax only: names stay (no identifier is renamed) and so do line breaks, so that the line Node
  // prints above an uncaught error is one statement, not the whole module (32 KB for a mistyped
  // option with minifyWhitespace). Indentation goes after the build (dropSourceMapComments).
  minifyWhitespace: false,
  minifySyntax: true,
}

export default defineConfig([
  {
    ...common,
    entry: ESM_ENTRIES,
    format: ['esm'],
    dts: false,
    esbuildPlugins: [engineFromCommonJS],
    onSuccess: async () => {
      await dropSourceMapComments(/\.js$/)()
      await declarationStubs()
      await esmStubs()
    },
  },
  // The disk spool: one CommonJS file that both builds load synchronously on a spool client's
  // construction (src/durability/spool-load.ts), and nothing else does. It imports nothing of the library.
  {
    ...common,
    entry: { spool: 'src/durability/spool/index.ts' },
    format: ['cjs'],
    dts: false,
    splitting: false,
    onSuccess: dropSourceMapComments(/^spool\.cjs$/),
  },
  // Every entry point as CommonJS; the bin (`eventrail dev`, `import`, `spool`) is only this build's
  // (`bin` runs dist/cli.cjs) and shares its chunks: the collector and the import engine exist once.
  // The engine is an entry of its own so that the ES module build can name it (engineFromCommonJS).
  {
    ...common,
    entry: { ...LIBRARY_ENTRIES, cli: 'src/cli.ts', 'import-messages': 'src/import/import-messages.ts' },
    format: ['cjs'],
    // Declarations for the package's entry points only: none for the bin or the engine.
    dts: { entry: LIBRARY_ENTRIES },
    onSuccess: dropSourceMapComments(/\.cjs$/),
    // A chunk loaded on first use (the import engine) is `require`d there, not `import()`ed: a
    // CommonJS user's test runner (jest without its ESM mode) cannot run `import()`.
    esbuildOptions: (options) => {
      options.supported = { ...options.supported, 'dynamic-import': false }
    },
  },
])
