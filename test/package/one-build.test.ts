import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { installNode, SUPPORTED_NODE_VERSIONS } from '../helpers/node-versions'
import { packedPackage } from '../helpers/packed'

// Issue 31, item 6: every entry point is built once, as CommonJS; each one's ES module entry
// re-exports its `.cjs` in one line (docs/decisions.md, "One build of everything"). Checked on the
// packed package as a user installs it: from ESM every entry point has the names `require` gives,
// each the same object (one instance of every class: no dual-package hazard), and the lazily
// loaded import engine works from both.
let app = ''
let dist = ''

beforeAll(() => {
  app = packedPackage().app
  dist = join(app, 'node_modules', 'eventrail', 'dist')
}, 240_000)

/** Runs `code` as an ES module in the installed project (bare names resolve to its node_modules). */
function esm(code: string, node = process.execPath): unknown {
  const result = spawnSync(node, ['--input-type=module', '-e', code], { cwd: app, encoding: 'utf8', timeout: 60_000 })
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout)
}

/** The package's entry points, from its `exports` ('eventrail', 'eventrail/collector', …). */
function entryPoints(): string[] {
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules', 'eventrail', 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>
  }
  return Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? 'eventrail' : `eventrail/${key.slice(2)}`))
}

describe('every entry point, one CommonJS build', () => {
  it('every ES module entry is one line re-exporting the CommonJS one, and no other ES module ships', () => {
    const stubs = entryPoints().map((specifier) => specifier.replace(/^eventrail\/?/, '') || 'index')
    expect(stubs.length).toBeGreaterThanOrEqual(6)
    for (const name of stubs) expect(readFileSync(join(dist, `${name}.js`), 'utf8')).toBe(`export * from './${name}.cjs'\n`)
    expect(readdirSync(dist).filter((file) => /\.(m?js)$/.test(file) && !stubs.includes(file.replace(/\.js$/, '')))).toEqual([])
  })

  // The Node running the tests, then each supported one (its CommonJS lexer is the one that finds the names).
  const nodes = [{ version: process.version.slice(1), binary: process.execPath }, ...SUPPORTED_NODE_VERSIONS.map((v) => installNode(v))]
  describe.each(nodes)('Node $version', (node) => {
    const test = 'binary' in node ? it : it.skip
    const why = 'reason' in node ? ` (skipped: ${node.reason})` : ''
    const binary = 'binary' in node ? node.binary : ''

    test(`each entry point's named exports from ESM are require's, each the same object${why}`, () => {
      const found = esm(
        `
        import { createRequire } from 'node:module'
        const require = createRequire(process.cwd() + '/')
        const out = {}
        for (const specifier of ${JSON.stringify(entryPoints())}) {
          const namespace = await import(specifier)
          const exported = require(specifier)
          // Node 23 and later also name the whole CommonJS exports 'module.exports'; export * passes it on.
          const esm = Object.keys(namespace).filter((k) => k !== 'module.exports').sort()
          const cjs = Object.keys(exported).sort()
          out[specifier] = { esm, cjs, different: cjs.filter((k) => namespace[k] !== exported[k]) }
        }
        console.log(JSON.stringify(out))`,
        binary,
      ) as Record<string, { esm: string[]; cjs: string[]; different: string[] }>
      expect(Object.keys(found)).toEqual(entryPoints())
      for (const [specifier, { esm, cjs, different }] of Object.entries(found)) {
        expect({ specifier, esm, different }).toEqual({ specifier, esm: cjs, different: [] })
        expect(cjs.length).toBeGreaterThan(0)
      }
      expect(found['eventrail'].cjs).toEqual(expect.arrayContaining(['Analytics', 'ValidationError', 'importMessages']))
      expect(found['eventrail/collector'].cjs).toEqual(expect.arrayContaining(['createCollector', 'judgeMessage', 'MESSAGE_TYPES']))
      expect(found['eventrail/otel'].cjs).toEqual(['instrument', 'stampTraces'])
    })

    test(`one instance of every class: the classes of import and require are the same objects, an error from one is the other's instance, eventrail/testing's too${why}`, () => {
      const result = esm(
        `
        import { createRequire } from 'node:module'
        const require = createRequire(process.cwd() + '/')
        const imported = await import('eventrail')
        const required = require('eventrail')
        const thrown = (make) => { try { make() } catch (err) { return err } }
        const fromRequire = thrown(() => new required.Analytics('k', { flushInteval: 1 }))
        const { Recorder } = await import('eventrail/testing')
        console.log(JSON.stringify({
          sameClass: required.ValidationError === imported.ValidationError && required.Analytics === imported.Analytics,
          instance: fromRequire instanceof imported.ValidationError && fromRequire.constructor === imported.ValidationError,
          testing: Recorder === require('eventrail/testing').Recorder && new Recorder() instanceof require('eventrail/testing').Recorder,
        }))`,
        binary,
      )
      expect(result).toEqual({ sameClass: true, instance: true, testing: true })
    })

    test(`an ES module client sends to the collector imported by name, and importMessages() from ESM loads the engine${why}`, () => {
      const result = esm(
        `
        import { createCollector } from 'eventrail/collector'
        import { Analytics, importMessages, ValidationError } from 'eventrail'
        const collector = await createCollector({ port: 0, host: '127.0.0.1' })
        const analytics = new Analytics('key', { host: collector.url })
        analytics.track({ userId: 'u1', event: 'Live' })
        await analytics.flush()
        const summary = await importMessages([{ type: 'track', userId: 'u2', event: 'Imported' }, 'not json'], analytics)
        await analytics.closeAndFlush()
        let branded = false
        try { await importMessages(42, analytics) } catch (err) { branded = err instanceof ValidationError }
        const events = collector.messages.map((m) => m.message.event).sort()
        await collector.close()
        console.log(JSON.stringify({ events, sent: summary.sent, refused: summary.refused, branded }))`,
        binary,
      )
      expect(result).toEqual({ events: ['Imported', 'Live'], sent: 1, refused: 1, branded: true })
    })
  })

  it('the bin runs from node_modules/.bin (dist/cli.cjs)', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules', 'eventrail', 'package.json'), 'utf8')) as { version: string }
    const result = spawnSync(join(app, 'node_modules', '.bin', 'eventrail'), ['--version'], { cwd: app, encoding: 'utf8', timeout: 60_000 })
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 0,
      stdout: `${pkg.version}\n`,
      stderr: '',
    })
  })
})
