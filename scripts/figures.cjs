// One source for every measured figure (issue 30): bench/figures.json names, for each key, a cell
// of bench/RESULTS.md; a page quotes it as <!-- figure: key -->text<!-- /figure -->.
// test/docs/figures.test.ts checks every page against its cells; after a bench run,
// `node scripts/figures.cjs --write` rewrites the quoted texts from the new cells.
const { readdirSync, readFileSync, writeFileSync } = require('node:fs')
const { join } = require('node:path')

const ROOT = join(__dirname, '..')
const MARKER = /<!-- figure: ([a-z0-9-]+) -->([\s\S]*?)<!-- \/figure -->/g

/** The pages that may quote figures. */
function pages(root = ROOT) {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))
  return ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', ...docs.map((f) => `docs/${f}`)]
}

/** bench/figures.json without its comment keys. */
function loadFigures(root = ROOT) {
  const all = JSON.parse(readFileSync(join(root, 'bench', 'figures.json'), 'utf8'))
  return Object.fromEntries(Object.entries(all).filter(([key]) => !key.startsWith('$')))
}

const cells = (line) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim())

/** The text a figure stands for, read from its cell of `results` (bench/RESULTS.md's text). */
function valueOf(key, results, figures) {
  const figure = figures[key]
  if (figure === undefined) throw new Error(`bench/figures.json has no figure "${key}"`)
  const lines = results.split('\n')
  const start = lines.findIndex((line) => line.startsWith(figure.table))
  if (start === -1) throw new Error(`${key}: no table under "${figure.table}" in bench/RESULTS.md`)
  const first = lines.findIndex((line, i) => i > start && line.startsWith('|'))
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'))
  const [header, , ...rows] = lines.slice(first, end).map(cells)
  const column = (name, occurrence = 1) =>
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
function quotes(text) {
  return [...text.matchAll(MARKER)].map((m) => ({ key: m[1], shown: m[2], line: text.slice(0, m.index).split('\n').length }))
}

/** Rewrites every quoted figure of every page from bench/RESULTS.md; returns the pages changed. */
function writeFigures(root = ROOT) {
  const results = readFileSync(join(root, 'bench', 'RESULTS.md'), 'utf8')
  const figures = loadFigures(root)
  const changed = []
  for (const page of pages(root)) {
    const text = readFileSync(join(root, page), 'utf8')
    const next = text.replace(MARKER, (_all, key) => `<!-- figure: ${key} -->${valueOf(key, results, figures)}<!-- /figure -->`)
    if (next !== text) {
      writeFileSync(join(root, page), next)
      changed.push(page)
    }
  }
  return changed
}

if (require.main === module && process.argv.includes('--write')) {
  const changed = writeFigures()
  console.log(changed.length === 0 ? 'every figure is current' : `updated: ${changed.join(', ')}`)
}

module.exports = { MARKER, pages, loadFigures, valueOf, quotes, writeFigures }
