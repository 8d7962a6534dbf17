import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// Issue 30: one source for every number. The installed size was 571, 624, 729 and 1,019 KB on
// different pages, track()'s cost 3.6 and 4.3 µs, a hard-down flush "~1.3 s", "~1.4 s" and
// "20–45 s". A page now quotes a measured figure as <!-- figure: key -->text<!-- /figure -->;
// bench/figures.json says which cell of bench/RESULTS.md each key is, and this test fails when
// the text is not that cell. After a bench run changes a cell, the pages fail here until updated.
const ROOT = join(__dirname, '..', '..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

interface Figure {
  table: string
  row: Record<string, string>
  column: string
  occurrence?: number
  scale?: number
  round?: number
  digits?: number
  unit?: string
}

const RESULTS = read('bench/RESULTS.md')
const FIGURES = Object.fromEntries(
  Object.entries(JSON.parse(read('bench/figures.json')) as Record<string, Figure | string>).filter(([key]) => !key.startsWith('$')),
) as Record<string, Figure>
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
const MARKER = /<!-- figure: ([a-z0-9-]+) -->([\s\S]*?)<!-- \/figure -->/g

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim())

/** The text a figure stands for, read from its cell of bench/RESULTS.md. */
function valueOf(key: string, results = RESULTS): string {
  const figure = FIGURES[key]
  if (figure === undefined) throw new Error(`bench/figures.json has no figure "${key}"`)
  const lines = results.split('\n')
  const start = lines.findIndex((line) => line.startsWith(figure.table))
  if (start === -1) throw new Error(`${key}: no table under "${figure.table}" in bench/RESULTS.md`)
  const first = lines.findIndex((line, i) => i > start && line.startsWith('|'))
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'))
  const [header, , ...rows] = lines.slice(first, end).map(cells)
  const column = (name: string, occurrence = 1) =>
    header.findIndex((h, i) => h === name && header.slice(0, i + 1).filter((x) => x === name).length === occurrence)
  const row = rows.find((r) => Object.entries(figure.row).every(([name, value]) => r[column(name)] === value))
  const index = column(figure.column, figure.occurrence)
  if (row === undefined || index === -1)
    throw new Error(`${key}: no row ${JSON.stringify(figure.row)} or column "${figure.column}" under "${figure.table}"`)
  const cell = row[index]
  if (figure.scale === undefined && figure.round === undefined && figure.digits === undefined) return cell + (figure.unit ?? '')
  let n = Number.parseFloat(cell.replace(/,/g, '')) * (figure.scale ?? 1)
  if (figure.round !== undefined) n = Math.round(n / figure.round) * figure.round
  const digits = figure.digits ?? 0
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) + (figure.unit ?? '')
}

/** Every figure a page quotes: key, the text on the page, the line. */
function quotes(text: string): { key: string; shown: string; line: number }[] {
  return [...text.matchAll(MARKER)].map((m) => ({ key: m[1], shown: m[2], line: text.slice(0, m.index).split('\n').length }))
}

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
