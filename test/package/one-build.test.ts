import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { installNode, SUPPORTED_NODE_VERSIONS } from '../helpers/node-versions'
import { packedPackage } from '../helpers/packed'

// Issue 31, item 6: the Node-only code (the collector, the OpenTelemetry bridge, the import engine,
// the bin) is built once, as CommonJS; the ES module entries of eventrail/collector and
// eventrail/otel re-export the `.cjs` in one line, and `import 'eventrail'` loads the engine's
// `.cjs` on the first importMessages() (docs/decisions.md, "One build of the Node-only code").
// Checked on the packed package as a user installs it.
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

describe('the Node-only entry points, one CommonJS build', () => {
  it.each(['collector', 'otel'])('eventrail/%s: the ES module entry is one line re-exporting the CommonJS one', (entry) => {
    expect(readFileSync(join(dist, `${entry}.js`), 'utf8')).toBe(`export * from './${entry}.cjs'\n`)
  })

  // The Node running the tests, then each supported one (its CommonJS lexer is the one that finds the names).
  const nodes = [{ version: process.version.slice(1), binary: process.execPath }, ...SUPPORTED_NODE_VERSIONS.map((v) => installNode(v))]
  describe.each(nodes)('Node $version', (node) => {
    const test = 'binary' in node ? it : it.skip
    const why = 'reason' in node ? ` (skipped: ${node.reason})` : ''
    const binary = 'binary' in node ? node.binary : ''

    test(`named imports from ESM find every export of the CommonJS build${why}`, () => {
      const names = esm(
        `
        import { createRequire } from 'node:module'
        const require = createRequire(process.cwd() + '/')
        const out = {}
        for (const entry of ['collector', 'otel']) {
          // Node 23 and later also name the whole CommonJS exports 'module.exports'; export * passes it on.
          const esm = Object.keys(await import('eventrail/' + entry)).filter((k) => k !== 'default' && k !== 'module.exports').sort()
          out[entry] = { esm, cjs: Object.keys(require('eventrail/' + entry)).sort() }
        }
        console.log(JSON.stringify(out))`,
        binary,
      ) as Record<string, { esm: string[]; cjs: string[] }>
      expect(names.collector.esm).toEqual(names.collector.cjs)
      expect(names.collector.esm).toEqual(expect.arrayContaining(['createCollector', 'judgeMessage', 'MESSAGE_TYPES', 'formatRecords']))
      expect(names.otel).toEqual({ esm: ['instrument', 'stampTraces'], cjs: ['instrument', 'stampTraces'] })
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
