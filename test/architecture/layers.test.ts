import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ESLint } from 'eslint'

// Issue 34: "a layout that shows the architecture, with folder order equal to dependency order …
// An import that points up the list fails a lint rule." The rule is scripts/layers.cjs, run here
// over every file of src/ (alone, without type information: a few seconds).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, ENTRY_POINTS, layerRules } = require('../../scripts/layers.cjs') as {
  LAYERS: string[]
  ENTRY_POINTS: string[]
  layerRules: () => object[]
}
const ROOT = join(__dirname, '..', '..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : []
  })
}

function layersLint(): ESLint {
  const tsParser = require('@typescript-eslint/parser') as object // eslint-disable-line @typescript-eslint/no-require-imports
  return new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    // Only the layer rule: directives in the files are for the full lint (npm run lint).
    allowInlineConfig: false,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tsParser } }, ...layerRules()] as never,
  })
}

describe('the layers of src/', () => {
  it('every folder of src/ is a layer, and only entry points stand at its root', () => {
    const entries = readdirSync(SRC)
    const folders = entries.filter((name) => statSync(join(SRC, name)).isDirectory())
    expect(folders.filter((name) => !LAYERS.includes(name))).toEqual([])
    expect(entries.filter((name) => !folders.includes(name) && !ENTRY_POINTS.includes(name.replace(/\.ts$/, '')))).toEqual([])
  })

  it('no file imports from a layer after its own', async () => {
    const lint = layersLint()
    const files = sourceFiles(SRC)
    const found: string[] = []
    for (const file of files) {
      const [result] = await lint.lintText(readFileSync(file, 'utf8'), { filePath: file })
      for (const m of result.messages) found.push(`${file.slice(ROOT.length + 1)}:${m.line}: ${m.message}`)
    }
    expect(found).toEqual([])
    expect(files.length).toBeGreaterThan(100)
  }, 60_000)

  it.each([
    ['src/core/x.ts', "import { FlushScheduler } from '../queue/scheduler'"],
    ['src/queue/x.ts', "import type { SpoolFlow } from '../durability/spool/index'"],
    ['src/durability/spool/x.ts', "export { Analytics } from '../../client/analytics'"],
    ['src/message/x.ts', "import { VERSION } from '../index'"],
  ])('an import up the list fails: %s', async (filePath, code) => {
    const [result] = await layersLint().lintText(code, { filePath: join(ROOT, filePath) })
    expect(result.messages.map((m) => m.ruleId)).toEqual(['no-restricted-imports'])
  })

  it('an import down the list passes', async () => {
    const [result] = await layersLint().lintText("import { ValidationError } from '../../core/errors'", {
      filePath: join(ROOT, 'src/durability/spool/x.ts'),
    })
    expect(result.messages).toEqual([])
  })
})
