import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// Issue 30: one source for every number. The installed size was 571, 624, 729 and 1,019 KB on
// different pages, track()'s cost 3.6 and 4.3 µs, a hard-down flush "~1.3 s", "~1.4 s" and
// "20–45 s". A page now quotes a measured figure as <!-- figure: key -->text<!-- /figure -->;
// bench/figures.json says which cell of bench/RESULTS.md each key is, and this test fails when
// the text is not that cell. After a bench run changes a cell, the pages fail here until updated.
const ROOT = join(__dirname, '..', '..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

// eslint-disable-next-line @typescript-eslint/no-require-imports
const figures = require('../../scripts/figures.cjs') as {
  MARKER: RegExp
  pages(): string[]
  loadFigures(): Record<string, unknown>
  valueOf(key: string, results: string, figures: Record<string, unknown>): string
  quotes(text: string): { key: string; shown: string; line: number }[]
}

const RESULTS = read('bench/RESULTS.md')
const FIGURES = figures.loadFigures()
const PAGES = figures.pages()
const MARKER = figures.MARKER
const valueOf = (key: string, results = RESULTS): string => figures.valueOf(key, results, FIGURES)
const quotes = (text: string) => figures.quotes(text)

it('every figure of bench/figures.json is found in bench/RESULTS.md', () => {
  const values = Object.keys(FIGURES).map((key) => [key, valueOf(key)])
  expect(values.length).toBeGreaterThan(10)
  // A few of them, as the run of bench/RESULTS.md gives them.
  expect(Object.fromEntries(values)).toMatchObject({
    'track-cost': expect.stringMatching(/^\d+\.\d µs$/),
    'installed-size': expect.stringMatching(/^[\d,]+ KB$/),
  })
})

it('the pages quote figures through markers (README, the migration guide, delivery, the changelog)', () => {
  for (const page of ['README.md', 'docs/migrating.md', 'docs/delivery.md', 'CHANGELOG.md'])
    expect(quotes(read(page)).length).toBeGreaterThan(0)
})

describe.each(PAGES)('the figures of %s', (page) => {
  it('are the cells of bench/RESULTS.md they name', () => {
    const wrong = quotes(read(page))
      .map((q) => ({ ...q, results: valueOf(q.key) }))
      .filter((q) => q.shown !== q.results)
      .map((q) => `${page}:${q.line} ${q.key}: "${q.shown}", bench/RESULTS.md gives "${q.results}"`)
    expect(wrong).toEqual([])
  })
})

it("the README's Size and speed section has no measured number outside a marker", () => {
  const readme = read('README.md')
  const section = readme.slice(readme.indexOf('## Size and speed'), readme.indexOf('## Contributing'))
  const bare = section
    .replace(/<!--[\s\S]*?-->/g, (comment) => (comment.startsWith('<!-- figure:') || comment === '<!-- /figure -->' ? comment : ''))
    .replace(MARKER, '')
    .match(/\d[\d,.]*\s*(µs|ms|KB|s\b|×|events a second)/g)
  expect(bare ?? []).toEqual([])
})

it('a page that disagrees with bench/RESULTS.md fails (a planted mistake)', () => {
  const planted = RESULTS.replace(/^(\| eventrail \| [\d,]+ \| )([\d,]+)( \|)/m, '$19,999$3')
  expect(valueOf('track-cost', planted)).toBe('10.0 µs')
  expect(valueOf('track-cost', planted)).not.toBe(valueOf('track-cost'))
})
