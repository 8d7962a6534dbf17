import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', collector: 'src/collector/index.ts', cli: 'src/cli.ts', testing: 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Shared chunks: one copy of the error classes, so `instanceof` works across entry points.
  splitting: true,
  treeshake: true,
})
