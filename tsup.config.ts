import { readdir, readFile, writeFile } from 'node:fs/promises'
import { defineConfig } from 'tsup'

// The maps stay in dist/ for local profiling (bench/lib/profile.mjs reads them) but are not
// published ("!dist/**/*.map" in package.json): a published file must not point at a map that is
// not there (debuggers and bundlers warn about the missing file), so the comments go.
async function dropSourceMapComments(): Promise<void> {
  for (const name of await readdir('dist')) {
    if (!/\.c?js$/.test(name)) continue
    const file = `dist/${name}`
    const text = await readFile(file, 'utf8')
    // Every such line: the tree-shaking pass leaves one of its own above tsup's.
    const stripped = text.replace(/^\/\/# sourceMappingURL=.*\n?/gm, '')
    if (stripped !== text) await writeFile(file, stripped)
  }
}

export default defineConfig({
  entry: { index: 'src/index.ts', collector: 'src/collector/index.ts', cli: 'src/cli.ts', testing: 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  onSuccess: dropSourceMapComments,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Shared chunks: one copy of the error classes, so `instanceof` works across entry points.
  splitting: true,
  treeshake: true,
  // A tiny CommonJS package (a regex), bundled in: imported from the ESM build, a CommonJS package
  // costs the CommonJS loader and its export scan at import time, ~3-7 ms of a cold start for a
  // few lines of code (measured on Node 20). Its MIT notice is in THIRD_PARTY_NOTICES.md, which is
  // published. (lodash.isstring is no longer used: the message snapshot unboxes String objects.)
  // node-fetch stays external and is loaded on the first send.
  noExternal: ['remove-trailing-slash'],
})
