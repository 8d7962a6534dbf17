// Scenario 4, in a fresh process: how long loading a client takes, with `import()` (ESM) or
// `require()` (CommonJS), and, after an import, how long until its first event is acknowledged
// (construct, track one event, flush). Prints one line of JSON.
//   node bench/import-time.mjs <client> import|require <specifier> [sink url]
// The runner (bench/run.mjs) passes what to load: the client's module (bench/lib/clients.mjs), or
// `node:http` for the reference, loaded the same way. Nothing but `node:module` is loaded before
// the timed call (the bench's own helpers load `node:stream` and its internals, which `node:http`
// needs too); they are imported after it, for the first event.

import { createRequire } from 'node:module'

const [name, mode, specifier, host] = process.argv.slice(2)
const require = createRequire(import.meta.url)
const t0 = performance.now()
if (mode === 'require') require(specifier)
else await import(specifier)
const loadMs = performance.now() - t0
let firstEventMs
if (host) {
  const { loadClient } = await import('./lib/clients.mjs')
  const { orderCompleted } = await import('./lib/events.mjs')
  const t1 = performance.now()
  const adapter = await loadClient(name)
  const client = adapter.create('bench-write-key', { host })
  client.track(orderCompleted(0))
  await client.flush()
  firstEventMs = performance.now() - t1
}
process.stdout.write(JSON.stringify({ loadMs, firstEventMs }) + '\n', () => process.exit(0))
