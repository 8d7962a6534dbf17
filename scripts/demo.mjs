// npm run demo: a local collector on a free port, examples/quickstart.ts run against it, and a
// table of what the collector received, with the verdict of each message. Exits 0 when the
// quickstart ran and every message it sent arrived.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createCollector, formatRecords } from 'eventrail/collector'

const WRITE_KEY = 'DEMO_WRITE_KEY'
const QUICKSTART = fileURLToPath(new URL('../.examples-build/quickstart.js', import.meta.url))

const collector = await createCollector({
  writeKeys: [WRITE_KEY],
  destinations: ['Amplitude', 'Google Analytics', 'Mixpanel'],
  historicalDestinations: ['Amplitude', 'Mixpanel'],
})
let exitCode
try {
  console.log(`collector listening on ${collector.url} (write key ${WRITE_KEY}; destinations Amplitude, Google Analytics, Mixpanel)`)
  console.log(`running examples/quickstart.ts against it\n`)
  const code = await run(process.execPath, [QUICKSTART], { ...process.env, EVENTRAIL_HOST: collector.url, EVENTRAIL_WRITE_KEY: WRITE_KEY })

  // Another client that does not check its messages: the collector answers 200 and drops them,
  // as the service would, with the reason its debugger shows.
  await sendRaw(collector.url, WRITE_KEY, '/v1/track', { event: 'Raw Event Without A User' })
  await sendRaw(collector.url, 'STALE_WRITE_KEY', '/v1/identify', { userId: 'user-42' })

  console.log(`\nwhat the collector received (${collector.messages.length} messages in ${collector.requests.length} requests):\n`)
  process.stdout.write(formatRecords(collector.messages))
  const fromQuickstart = collector.messages.filter((r) => r.writeKey === WRITE_KEY && r.verdict === 'accepted').length
  console.log(`\nnext: npx eventrail dev   (keeps a collector and its live debugger page running on http://127.0.0.1:4040)`)
  exitCode = code === 0 && fromQuickstart === 8 ? 0 : 1
  if (exitCode !== 0) console.error(`demo failed: quickstart exited with ${code}, ${fromQuickstart} of 8 messages accepted`)
} finally {
  await collector.close()
}
process.exitCode = exitCode

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve(signal ? 1 : code))
  })
}

async function sendRaw(baseUrl, writeKey, path, body) {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { Authorization: `Basic ${btoa(`${writeKey}:`)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  await response.arrayBuffer()
}
