import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// Issue 11, item 14: the maps are not published ("!dist/**/*.map" in package.json), so no
// published file may point at one. Checks the build that `npm test` has just made.
const DIST = join(__dirname, '..', '..', 'dist')

it('no built JS file has a sourceMappingURL comment', () => {
  if (!existsSync(join(DIST, 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)')
  const files = readdirSync(DIST).filter((name) => /\.c?js$/.test(name))
  expect(files).toEqual(expect.arrayContaining(['index.js', 'index.cjs', 'collector.js', 'testing.cjs', 'cli.cjs']))
  expect(files.filter((name) => readFileSync(join(DIST, name), 'utf8').includes('sourceMappingURL'))).toEqual([])
})
