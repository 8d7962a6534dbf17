// Scenario 4, in a fresh process: how long loading a client takes, with `import()` (ESM) or
// `require()` (CommonJS), and, after an import, how long until its first event is acknowledged
// (construct, track one event, flush). Prints one line of JSON.
//   node bench/import-time.mjs <client> import|require [sink url]

import { createRequire } from 'node:module'
import { CLIENT_MODULES, importSpecifier, loadClient } from './lib/clients.mjs'
import { orderCompleted } from './lib/events.mjs'

const [name, mode, host] = process.argv.slice(2)
const require = createRequire(import.meta.url)
const t0 = performance.now()
if (mode === 'require') require(CLIENT_MODULES[name])
else await import(importSpecifier(name))
const loadMs = performance.now() - t0
let firstEventMs
if (host) {
  const t1 = performance.now()
  const adapter = await loadClient(name)
  const client = adapter.create('bench-write-key', { host })
  client.track(orderCompleted(0))
  await client.flush()
  firstEventMs = performance.now() - t1
}
process.stdout.write(JSON.stringify({ loadMs, firstEventMs }) + '\n', () => process.exit(0))
