import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

// The ```ts and ```js code blocks of the README and docs/*.md, with the markers of the line before
// each (`<!-- illustration -->`, `<!-- edge; fails: TS2322 why -->`, `<!-- no-run: why -->`), for
// the tests that type-check them (code-blocks.test.ts) and run them (run-blocks.test.ts).
export const ROOT = join(__dirname, '..', '..')

/** The pages whose code blocks are tested: the README and every guide. */
export const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** One code block of a page. */
export interface DocBlock {
  page: string
  /** The line of its first line of code. */
  line: number
  ts: boolean
  code: string
  /** The markers of the comment on the line before it, split at `;`. */
  directives: string[]
}

/** The code blocks of `page`, in order. */
export function blocksOf(page: string): DocBlock[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n')
  const blocks: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript)\s*$/.exec(lines[i])
    if (open === null) continue
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'))
    const before =
      lines
        .slice(0, i)
        .reverse()
        .find((line) => line.trim() !== '') ?? ''
    const directives = (/^<!--\s*(.*?)\s*-->$/.exec(before.trim())?.[1] ?? '').split(';').map((d) => d.trim())
    blocks.push({ page, line: i + 2, ts: open[1].startsWith('t'), code: lines.slice(i + 1, end).join('\n'), directives })
    i = end
  }
  return blocks
}
