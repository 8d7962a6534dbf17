import { readdirSync } from 'node:fs'
import * as path from 'node:path'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import {
  deadPart,
  DIST_ESM,
  failOnUnhandledRejections,
  frame,
  resultOf,
  ROOT,
  runChild,
  segment,
  useTempDirs,
  wireMessage,
} from './helpers'

// Issue 22: "nothing of it loads with `import 'eventrail'` unless it is used." The spool's code
// is dist/spool.cjs, loaded synchronously by the first client made with the option, from the ESM
// and the CommonJS builds alike. Each child loads the built package by its name (a package may
// import itself), tracks one message with a spool and sends what a dead client left in it.

const tempDir = useTempDirs()
failOnUnhandledRejections()
let server: FaultServer
afterEach(async () => {
  await server?.close()
})

const SPOOL_CJS = path.join(ROOT, 'dist', 'spool.cjs')

describe.each<[string, string, string]>([
  ['ESM', 'load.mjs', DIST_ESM],
  ['CommonJS', 'load.cjs', path.join(ROOT, 'dist', 'index.cjs')],
])('the %s build', (build, fixture, entry) => {
  it(`loads dist/spool.cjs only when a client is made with the spool option, and spools with it`, async () => {
    server = await startFaultServer()
    const dir = tempDir()
    await deadPart(
      dir,
      { '000001.log': segment(frame(wireMessage('left0')), frame(wireMessage('left1'))) },
      { key: 'load-key', host: server.url },
    )
    const log = path.join(tempDir(), 'loaded.txt')
    const prefix = build === 'ESM' ? 'esm' : 'cjs'

    const child = runChild(fixture, [JSON.stringify({ host: server.url, dir, log })])
    expect(await child.done).toEqual({ code: 0, signal: null, stderr: '' })
    const result = resultOf(child)

    expect(result.entry).toBe(entry)
    expect(result.afterImport).toEqual([])
    expect(result.afterPlain).toEqual([])
    expect(result.afterSpool).toEqual([SPOOL_CJS])
    expect(result.closed).toEqual({ waiting: 0 })
    expect(result.replays).toEqual([{ count: 2, torn: 0 }])
    expect(result.unhandled).toEqual([])
    expect([...server.accepted.keys()].sort()).toEqual([`${prefix}-plain`, `${prefix}-spooled`, 'left0', 'left1'].sort())
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)
})
