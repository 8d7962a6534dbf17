import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

// Issue 25: the README is what a newcomer reads first. It stays short, its set-up commands are
// the ones CI runs, and no link of the README, CONTRIBUTING.md or a guide points nowhere.
const ROOT = join(__dirname, '..', '..')
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join('docs', f))
const FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...DOCS]

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '')
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])))
}

/** Every relative link of a Markdown file (outside code blocks): [text](target). */
function linksOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/i.test(target))
}

describe('the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

  it('is under 12 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(12 * 1024)
  })

  it('gives the two set-up commands of a fresh clone, and how to install until the package is published', () => {
    expect(readme).toContain('npm ci && npm run demo')
    expect(readme).toContain('npm test')
    expect(readme).toContain('npm pack')
    expect(readme).toContain('npm install eventrail')
  })

  it('marks every measured number as taken from bench/RESULTS.md', () => {
    const section = readme.slice(readme.indexOf('## Size and speed'), readme.indexOf('## Contributing'))
    const claims = section.split('\n').filter((line) => /\d\s*(µs|ms|KB|events a second|×)/.test(line))
    expect(claims.length).toBeGreaterThan(0)
    expect(section).toContain('<!-- bench:')
  })
})

describe.each(FILES)('the links of %s', (file) => {
  it('point to files and headings that exist', () => {
    const broken: string[] = []
    for (const link of linksOf(file)) {
      const [path, anchor] = link.split('#', 2)
      const target = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path))
      if (!existsSync(target)) {
        broken.push(`${link}: ${relative(ROOT, target)} does not exist`)
        continue
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`)
      }
    }
    expect(broken).toEqual([])
  })
})
