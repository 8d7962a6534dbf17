import { readdir, readFile, writeFile } from 'node:fs/promises'
import { defineConfig, type Options } from 'tsup'
import { dedentFile } from './scripts/dedent-build.mjs'

// The maps stay in dist/ for local profiling (bench/lib/profile.mjs reads them) but are not
// published ("!dist/**/*.map" in package.json): a published file must not point at a map that is
// not there (debuggers and bundlers warn about the missing file), so the comments go. Each build
// (the spool, the rest) strips its own files: the two run at once. Each file also loses its
// indentation (scripts/dedent-build.mjs): the build keeps its line breaks, so that an uncaught error
// prints one readable line, not a whole module (docs/decisions.md, "Readable errors").
function dropSourceMapComments(extension: RegExp): () => Promise<void> {
  return async () => {
    for (const name of await readdir('dist')) {
      if (!extension.test(name)) continue
      const file = `dist/${name}`
      dedentFile(file)
      const text = await readFile(file, 'utf8')
      // Every such line: the tree-shaking pass leaves one of its own above tsup's.
      const stripped = bundlerView(text.replace(/^\/\/# sourceMappingURL=.*\n?/gm, ''))
      if (stripped !== text) await writeFile(file, stripped)
    }
  }
}

/**
 * What a bundler (a Worker's, a Next.js app's, a Lambda's) sees of the lazy loads. tsup's CommonJS
 * output calls every one through esbuild's `__require` shim, which no bundler follows (and which
 * throws inside a bundle). gzip and the import engine, which run anywhere, become plain
 * `require("./….cjs")` calls: Node still loads them on first use, and a bundler takes them in (the
 * engine costs a Worker's minified bundle ~12 KB; without it `importMessages()` rejected in every
 * bundle). The Node-only code stays out of sight: the spool (its name is a parameter) and the one
 * run-time import (src/platform/runtime.ts, importAtRunTime: a Node built-in on a host without
 * `process.getBuiltinModule`), which becomes an `import()` that webpack and Vite are told to leave
 * alone, as it is in the source (the build drops comments).
 */
function bundlerView(text: string): string {
  return text
    .replace(/\b(?:\w+\.)?__toESM\((?:\w+\.)?__require\(specifier\)\)/g, 'import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)')
    .replace(/\b(?:\w+\.)?__require\(("\.\/(?:gzip-[\w-]+|import-messages)\.cjs")\)/g, 'require($1)')
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
 * The ES module side of each entry point: one line re-exporting its `.cjs`, as `dist/<name>.js` (the
 * code exists once, as CommonJS: Node's CommonJS lexer finds its named exports, and `import` and
 * `require` load the same files, so each class exists once; docs/decisions.md, "One build of
 * everything") and as `dist/<name>.d.ts` (one set of declarations, the build's `.d.cts`, named
 * exports only; attw finds the types in every resolution mode, test/package/pack.test.ts).
 */
async function esmStubs(): Promise<void> {
  const names = Object.keys(LIBRARY_ENTRIES)
  await Promise.all(
    names.flatMap((name) => ['js', 'd.ts'].map((ext) => writeFile(`dist/${name}.${ext}`, `export * from './${name}.cjs'\n`))),
  )
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
  // The disk spool: one CommonJS file that the client loads synchronously on a spool client's
  // construction (src/durability/spool-load.ts), and nothing else does. It imports nothing of the library.
  {
    ...common,
    entry: { spool: 'src/durability/spool/index.ts' },
    format: ['cjs'],
    dts: false,
    splitting: false,
    onSuccess: dropSourceMapComments(/^spool\.cjs$/),
  },
  // Every entry point, once, as CommonJS (the ES module entries are one-line stubs: esmStubs); the
  // bin (`eventrail dev`, `import`, `spool`, dist/cli.cjs) shares its chunks. The import engine is
  // an entry of its own, loaded on the first importMessages() call.
  {
    ...common,
    entry: { ...LIBRARY_ENTRIES, cli: 'src/cli.ts', 'import-messages': 'src/import/import-messages.ts' },
    format: ['cjs'],
    // Declarations for the package's entry points only: none for the bin or the engine.
    dts: { entry: LIBRARY_ENTRIES },
    onSuccess: async () => {
      await dropSourceMapComments(/\.cjs$/)()
      await esmStubs()
    },
    // A chunk loaded on first use (the import engine) is `require`d there, not `import()`ed: a
    // CommonJS user's test runner (jest without its ESM mode) cannot run `import()`.
    esbuildOptions: (options) => {
      options.supported = { ...options.supported, 'dynamic-import': false }
    },
  },
])
