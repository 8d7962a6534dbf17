import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import * as eventrail from '../../src'
import { DEFAULTS } from '../../src/config/options'

// Issue 30: docs/client.md says it has every option, method, event and error, and the TSDoc
// `@defaultValue`s are the API reference. Both drifted (waitUntil, spool, five error classes
// missing; retryDelay documented 100 while the code used 50). The lists here are read from the
// code (the TypeScript source and the module's exports), so a new option, method, event or error
// class fails this test until the page has it.
const ROOT = join(__dirname, '..', '..')
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const CLIENT_MD = read('docs/client.md')
const DELIVERY_MD = read('docs/delivery.md')

function sourceOf(file: string): ts.SourceFile {
  return ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true)
}

/** The members of `interface name` in `file`, with their TSDoc tags. */
function interfaceMembers(file: string, name: string): { name: string; tags: Map<string, string> }[] {
  const source = sourceOf(file)
  const node = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name)
  if (node === undefined) throw new Error(`${file} has no interface ${name}`)
  return node.members.map((member) => {
    const tags = new Map<string, string>()
    for (const tag of ts.getJSDocTags(member)) tags.set(tag.tagName.text, ts.getTextOfJSDocComment(tag.comment) ?? '')
    return { name: (member.name as ts.Identifier).text, tags }
  })
}

/** The public methods and accessors of `class name` in `file` (not the constructor, not #private ones). */
function publicMembers(file: string, name: string): string[] {
  const source = sourceOf(file)
  const node = source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name)
  if (node === undefined) throw new Error(`${file} has no class ${name}`)
  return node.members
    .filter((m) => (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m)) && ts.isIdentifier(m.name))
    .filter((m) => !(ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
    .map((m) => (m.name as ts.Identifier).text)
}

const OPTIONS = interfaceMembers('src/config/options.ts', 'AnalyticsOptions')
const EVENTS = interfaceMembers('src/client/observe.ts', 'AnalyticsEvents').map((m) => m.name)
const METHODS = publicMembers('src/client/analytics.ts', 'Analytics')
const DELIVER_METHODS = interfaceMembers('src/client/deliver-methods.ts', 'DeliverMethods').map((m) => `deliver.${m.name}`)
const FLUSH_RESULT = interfaceMembers('src/core/types.ts', 'FlushResult').map((m) => m.name)
const ERROR_CLASSES = Object.entries(eventrail)
  .filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error)
  .map(([name]) => name)

/** The rows of the Markdown table that starts after `heading`, each row's first cell. */
function firstCells(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(heading)
  if (start === -1) throw new Error(`no "${heading}" in the page`)
  const lines = markdown.slice(start).split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'))
  return lines.slice(first + 2, end).map((row) => row.split('|')[1].trim())
}

describe('the lists read from the code', () => {
  it('are not empty (the parsing found them)', () => {
    expect(OPTIONS.length).toBeGreaterThan(20)
    expect(METHODS).toEqual(expect.arrayContaining(['track', 'flush', 'closeAndFlush', 'on', 'stats', 'deliver']))
    expect(EVENTS).toEqual(expect.arrayContaining(['error', 'breaker', 'replay']))
    expect(ERROR_CLASSES).toEqual(expect.arrayContaining(['ValidationError', 'SpoolError', 'PlanViolationError']))
    expect(FLUSH_RESULT).toEqual(['waiting'])
  })
})

describe('docs/client.md', () => {
  it('has a row for every option of AnalyticsOptions', () => {
    const rows = firstCells(CLIENT_MD, '## `new Analytics(writeKey, options?)`')
    expect(OPTIONS.map((o) => o.name).filter((name) => !rows.includes(`\`${name}\``))).toEqual([])
  })

  it('gives every default as DEFAULTS has it', () => {
    const start = CLIENT_MD.indexOf('| Option | Default |')
    const wrong: string[] = []
    for (const [name, value] of Object.entries(DEFAULTS)) {
      const row = new RegExp(`^\\| \`${name}\` \\| ([^|]+) \\|`, 'm').exec(CLIENT_MD.slice(start))
      const shown = row?.[1].trim()
      if (shown !== `\`${typeof value === 'string' ? value : String(value)}\``) wrong.push(`${name}: ${shown} (code: ${String(value)})`)
    }
    expect(wrong).toEqual([])
  })

  it('names every public method of Analytics, and each deliver method', () => {
    const missing = [...METHODS.map((m) => (m === 'deliver' ? '`deliver' : `\`${m}(`)), ...DELIVER_METHODS.map((m) => `\`${m}(`)].filter(
      (needle) => !CLIENT_MD.includes(needle),
    )
    expect(missing).toEqual([])
  })

  it("names every event of on() and off(), and flush()'s result", () => {
    const section = CLIENT_MD.slice(CLIENT_MD.indexOf('## `on(event, listener)`'))
    expect(EVENTS.filter((event) => !section.includes(`\`${event}\``))).toEqual([])
    expect(FLUSH_RESULT.filter((field) => !CLIENT_MD.includes(`{ ${field} }`))).toEqual([])
  })

  it('names every exported error class', () => {
    expect(ERROR_CLASSES.filter((name) => !CLIENT_MD.includes(`\`${name}\``))).toEqual([])
  })
})

it("docs/delivery.md's list of error classes has every exported one", () => {
  const section = DELIVERY_MD.slice(DELIVERY_MD.indexOf('## Callbacks and errors'), DELIVERY_MD.indexOf('## Delivery guarantees'))
  expect(ERROR_CLASSES.filter((name) => !section.includes(`\`${name}\``))).toEqual([])
})

describe('the @defaultValue of each option in src/config/options.ts', () => {
  /** A tag's value as code would have it: `'text'` → text, 10000 → 10000; undefined when it is prose. */
  function literal(tag: string): unknown {
    const text = tag
      .replace(/`/g, '')
      .replace(/\s*\(.*\)$/, '')
      .trim()
    if (/^'[^']*'$/.test(text)) return text.slice(1, -1)
    if (text === 'true' || text === 'false') return text === 'true'
    if (/^-?\d[\d_]*(\.\d+)?$/.test(text)) return Number(text.replace(/_/g, ''))
    return undefined
  }

  it('is DEFAULTS for every option that has a default there', () => {
    const wrong = OPTIONS.filter((o) => Object.hasOwn(DEFAULTS, o.name))
      .map((o) => ({
        name: o.name,
        documented: literal(o.tags.get('defaultValue') ?? ''),
        code: DEFAULTS[o.name as keyof typeof DEFAULTS],
      }))
      .filter((o) => o.documented !== o.code)
    expect(wrong).toEqual([])
  })

  it('is prose only for options that DEFAULTS has not (no literal default is documented without the code having it)', () => {
    const orphans = OPTIONS.filter((o) => !Object.hasOwn(DEFAULTS, o.name) && literal(o.tags.get('defaultValue') ?? '') !== undefined)
    expect(orphans.map((o) => o.name)).toEqual([])
  })
})
