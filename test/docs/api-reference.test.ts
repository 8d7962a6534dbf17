// docs/api is generated from the TSDoc (`npm run docs`): this test generates it again into a
// temporary directory and fails when the committed pages differ, so that the reference cannot
// drift from the code (it had: the fallback hosts' options and HostStats were missing).
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

const root = join(__dirname, '..', '..')
const committed = join(root, 'docs', 'api')

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

let out: string

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'eventrail-api-'))
  const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc')
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [typedoc, '--out', out], { cwd: root, timeout: 90_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`typedoc failed: ${stderr || err.message}`)) : resolve(),
    ),
  )
}, 120_000)

afterAll(() => rmSync(out, { recursive: true, force: true }))

it('docs/api is what `npm run docs` generates from the code today (run it and commit the pages)', () => {
  const list = (dir: string): string[] =>
    filesUnder(dir)
      .map((path) => relative(dir, path).split('\\').join('/'))
      .sort()
  const generated = list(out)
  expect(list(committed)).toEqual(generated)
  const differing = generated.filter((name) => readFileSync(join(out, name), 'utf8') !== readFileSync(join(committed, name), 'utf8'))
  expect(differing).toEqual([])
})
