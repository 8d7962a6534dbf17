// The build keeps one statement a line, so that the line Node prints above an uncaught error (and
// each frame of its stack) is a line a person can read, not a whole module on one line
// (docs/decisions.md, "Readable errors"). esbuild has no option for indentation, which is a
// quarter of what its whitespace minifier saves; this removes it after the build: the leading
// spaces of every line that does not begin inside a template or string literal (whose text the
// spaces are part of). The source map beside the file is shifted to match. A line that holds only
// a comment is emptied (the line itself stays, so every line keeps its number): esbuild keeps the
// sources' comments (TSDoc and notes, ~80 KB of ~660 KB), which no user of the package reads there
// (the declarations carry the TSDoc). Legal comments (`/*!`, `@license`) and comments beside code
// (`/* @__PURE__ */`, `/* webpackIgnore: true */`) stay.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import ts from 'typescript'

/** Start and end offsets of every literal whose text may span lines. */
function literalRanges(text, source) {
  const ranges = []
  const visit = (node) => {
    switch (node.kind) {
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
      case ts.SyntaxKind.TemplateHead:
      case ts.SyntaxKind.TemplateMiddle:
      case ts.SyntaxKind.TemplateTail:
      case ts.SyntaxKind.StringLiteral:
        ranges.push([node.getStart(source), node.end])
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return ranges.sort((a, b) => a[0] - b[0])
}

/** Which characters of `text` are inside a comment (legal comments excluded). */
function commentChars(text, source) {
  const inComment = new Uint8Array(text.length)
  const mark = (ranges) => {
    for (const { pos, end } of ranges ?? []) {
      const comment = text.slice(pos, end)
      if (comment.startsWith('/*!') || comment.includes('@license') || comment.includes('@preserve')) continue
      inComment.fill(1, pos, end)
    }
  }
  const visit = (node) => {
    mark(ts.getLeadingCommentRanges(text, node.pos))
    mark(ts.getTrailingCommentRanges(text, node.end))
    for (const child of node.getChildren(source)) visit(child)
  }
  visit(source)
  return inComment
}

/**
 * `text` with the indentation of each line outside a literal removed and each line that holds only
 * a comment emptied, and how many characters each line lost (all of them, at its start, either way).
 */
export function dedent(text) {
  const source = ts.createSourceFile('built.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const ranges = literalRanges(text, source)
  const inComment = commentChars(text, source)
  const lines = text.split('\n')
  const removed = []
  let offset = 0
  let r = 0
  for (let i = 0; i < lines.length; i++) {
    while (r < ranges.length && ranges[r][1] <= offset) r++
    const inLiteral = r < ranges.length && ranges[r][0] < offset && offset < ranges[r][1]
    const line = lines[i]
    let indent = inLiteral ? 0 : line.length - line.trimStart().length
    if (!inLiteral && !line.startsWith('#!') && onlyComment(inComment, offset + indent, offset + line.trimEnd().length))
      indent = line.length
    offset += line.length + 1
    removed.push(indent)
    lines[i] = line.slice(indent)
  }
  return { text: lines.join('\n'), removed }
}

/** True when `[start, end)` is not empty and every character in it is inside a comment. */
function onlyComment(inComment, start, end) {
  if (start >= end) return false
  for (let c = start; c < end; c++) if (inComment[c] === 0) return false
  return true
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** The base-64 VLQ numbers of one mapping segment. */
function decodeSegment(segment) {
  const values = []
  let value = 0
  let shift = 0
  for (const char of segment) {
    const digit = BASE64.indexOf(char)
    value += (digit & 31) << shift
    shift += 5
    if ((digit & 32) !== 0) continue
    values.push(value & 1 ? -(value >>> 1) : value >>> 1)
    value = 0
    shift = 0
  }
  return values
}

function encode(value) {
  let vlq = value < 0 ? (-value << 1) | 1 : value << 1
  let out = ''
  do {
    let digit = vlq & 31
    vlq >>>= 5
    if (vlq > 0) digit |= 32
    out += BASE64[digit]
  } while (vlq > 0)
  return out
}

/**
 * A source map's `mappings` with each generated line's columns moved left by what the line lost.
 * The fields of a segment are relative to the previous segment, so the whole map is decoded to
 * absolute numbers and encoded again. A segment that pointed into the removed indentation moves
 * to the line's start, where the last of them wins.
 */
export function shiftMappings(mappings, removed) {
  const fields = [0, 0, 0, 0, 0] // column (per line), source, line, column, name: absolute
  const lines = mappings.split(';').map((line, i) => {
    fields[0] = 0
    const segments = []
    for (const segment of line === '' ? [] : line.split(',')) {
      const values = decodeSegment(segment)
      values.forEach((value, f) => (fields[f] += value))
      const absolute = fields.slice(0, values.length)
      absolute[0] = Math.max(0, absolute[0] - (removed[i] ?? 0))
      if (segments.length > 0 && segments.at(-1)[0] === absolute[0]) segments.pop()
      segments.push(absolute)
    }
    return segments
  })
  const previous = [0, 0, 0, 0, 0]
  return lines
    .map((segments) => {
      previous[0] = 0
      const encoded = []
      for (const absolute of segments) {
        encoded.push(absolute.map((value, f) => encode(value - previous[f])).join(''))
        absolute.forEach((value, f) => (previous[f] = value))
      }
      return encoded.join(',')
    })
    .join(';')
}

/** Removes the indentation of a built file, and shifts its map when there is one. */
export function dedentFile(file) {
  const { text, removed } = dedent(readFileSync(file, 'utf8'))
  writeFileSync(file, text)
  const mapFile = `${file}.map`
  if (!existsSync(mapFile)) return
  const map = JSON.parse(readFileSync(mapFile, 'utf8'))
  map.mappings = shiftMappings(map.mappings, removed)
  writeFileSync(mapFile, JSON.stringify(map))
}
