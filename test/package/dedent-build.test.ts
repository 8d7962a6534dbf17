import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

// Issue 30: the build keeps its line breaks and loses only its indentation (scripts/dedent-build.mjs);
// issue 31: and the text of the lines that hold only a comment.
// The text of a template or string literal must not change, and the source map must still point
// every generated position at the same place in the source. The script is an ES module, so the
// check runs in a child Node (jest here loads CommonJS).
const ROOT = join(__dirname, '..', '..')

const SOURCE = `export function message(count: number): string {
  if (count > 1) {
    const lines = \`first
    second, indented in the literal
      third\`
    return lines + '  a string'
  }
  return \`\${count} message\`
}
`

const CHILD = `
import { SourceMap } from 'node:module'
import { transformSync } from 'esbuild'
import { dedent, shiftMappings } from ${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'dedent-build.mjs')).href)}
const built = transformSync(process.argv[1], { loader: 'ts', format: 'esm', sourcemap: 'external' })
const { text, removed } = dedent(built.code)
const minify = (code) => transformSync(code, { loader: 'js', minify: true }).code
const map = JSON.parse(built.map)
const before = new SourceMap(map)
const after = new SourceMap({ ...map, mappings: shiftMappings(map.mappings, removed) })
const lines = built.code.split('\\n')
let checked = 0
const moved = []
lines.forEach((line, i) => {
  for (let column = removed[i]; column < line.length; column++) {
    const a = before.findEntry(i, column)
    const b = after.findEntry(i, column - removed[i])
    if (a.originalLine !== b.originalLine || a.originalColumn !== b.originalColumn) moved.push([i, column])
    checked++
  }
})
process.stdout.write(JSON.stringify({
  text,
  linesRemoved: removed.filter((n) => n > 0).length,
  indentedCode: text.split('\\n').filter((line) => /^\\s+(if|return|const)\\b/.test(line)),
  sameProgram: minify(text) === minify(built.code),
  sameLineCount: text.split('\\n').length === lines.length,
  checked,
  moved,
}))
`

const result = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, SOURCE], { cwd: ROOT, encoding: 'utf8' })
const report = () => {
  if (result.status !== 0) throw new Error(`the check failed:\n${result.stderr}`)
  return JSON.parse(result.stdout) as {
    text: string
    linesRemoved: number
    indentedCode: string[]
    sameProgram: boolean
    sameLineCount: boolean
    checked: number
    moved: number[][]
  }
}

it('removes the indentation of code lines, never inside a literal', () => {
  const { text, linesRemoved, indentedCode, sameProgram, sameLineCount } = report()
  expect(text).toContain('\n    second, indented in the literal\n      third`')
  expect({ linesRemoved: linesRemoved > 0, indentedCode, sameProgram, sameLineCount }).toEqual({
    linesRemoved: true,
    indentedCode: [],
    sameProgram: true,
    sameLineCount: true,
  })
})

it('shifts the source map so that every position maps where it did', () => {
  const { checked, moved } = report()
  expect(checked).toBeGreaterThan(100)
  expect(moved).toEqual([])
})

// esbuild's bundles keep the sources' comments (its transform, above, drops them): a built file as
// the bundler writes it, with its comments.
const BUILT = `// src/message.ts
/** What the user reads: one line. */
function message(count) {
  // A note for whoever reads the source.
  if (count > 1) {
    const lines = \`first
      // a comment's look, inside the literal
      third\`;
    return lines + "  a string"; // beside code
  }
  /*
   * A block comment
   * on three lines.
   */
  return \`\${count} message\` + String(/* @__PURE__ */ Symbol("kept"));
}
/*! a legal comment */
export { message };
`

it('empties the lines that hold only a comment; keeps comments beside code, legal comments and text inside a literal', () => {
  const child = `import { dedent } from ${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'dedent-build.mjs')).href)}
process.stdout.write(JSON.stringify(dedent(process.argv[1])))`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', child, BUILT], { cwd: ROOT, encoding: 'utf8' })
  expect(result.stderr).toBe('')
  const { text, removed } = JSON.parse(result.stdout) as { text: string; removed: number[] }
  for (const gone of ['src/message.ts', 'What the user reads', 'A note for', 'A block comment', 'on three lines'])
    expect(text).not.toContain(gone)
  expect(text).toContain("\n      // a comment's look, inside the literal\n")
  for (const kept of ['// beside code', '/* @__PURE__ */', '/*! a legal comment */']) expect(text).toContain(kept)
  // Every line stays, so that each keeps its number (and the source map its lines).
  expect(text.split('\n')).toHaveLength(BUILT.split('\n').length)
  expect(removed).toHaveLength(BUILT.split('\n').length)
})
