import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

// Issue 34, "Errors as data": an error thrown by the CommonJS build is recognised by the ES
// module build (its instanceof and its guards) and the reverse, and in another realm (node:vm).
// A project that loads both builds (a CommonJS dependency of an ES module app) used to get false.
// Since issue 31 both paths load the one CommonJS build (the classes are the same objects:
// test/package/one-build.test.ts); the brand still answers across realms and bundled copies.
const ROOT = join(__dirname, '..', '..')
const CJS = join(ROOT, 'dist', 'index.cjs')
const ESM = join(ROOT, 'dist', 'index.js')

const SCRIPT = `
const { createRequire } = await import('node:module')
const vm = await import('node:vm')
const require = createRequire(import.meta.url)
const cjs = require(${JSON.stringify(CJS)})
const esm = await import(${JSON.stringify(ESM)})
const thrown = (lib) => { try { new lib.Analytics('k', { flushInteval: 1 }) } catch (err) { return err } }
const fromCjs = thrown(cjs)
const fromEsm = thrown(esm)
const delivery = new cjs.ServiceUnavailableError('down', 503)
const foreign = vm.runInNewContext('new Error("x")')
const out = {
  cjsInEsm: [fromCjs instanceof esm.ValidationError, fromCjs instanceof esm.EventrailError, esm.ValidationError.is(fromCjs), esm.isEventrailError(fromCjs)],
  esmInCjs: [fromEsm instanceof cjs.ValidationError, fromEsm instanceof cjs.EventrailError, cjs.ValidationError.is(fromEsm), cjs.isEventrailError(fromEsm)],
  notOthers: [fromCjs instanceof esm.DeliveryError, esm.DeliveryError.is(fromCjs), esm.isEventrailError(foreign), esm.isEventrailError(null), esm.isEventrailError({ name: 'ValidationError' })],
  subclass: [delivery instanceof esm.DeliveryError, esm.DeliveryError.is(delivery), delivery instanceof esm.ServiceUnavailableError, delivery.reason],
  realm: vm.runInNewContext('err instanceof V', { err: fromCjs, V: esm.ValidationError }),
}
console.log(JSON.stringify(out))
`

it('errors are recognised across the CommonJS and ES module builds and across realms', () => {
  if (!existsSync(CJS) || !existsSync(ESM)) throw new Error('dist/ is missing: run "npm run build" first')
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { encoding: 'utf8', timeout: 30_000 })
  expect(run.stderr).toBe('')
  expect(JSON.parse(run.stdout)).toEqual({
    cjsInEsm: [true, true, true, true],
    esmInCjs: [true, true, true, true],
    notOthers: [false, false, false, false, false],
    subclass: [true, true, true, 'outage'],
    realm: true,
  })
})
