// npm run bench:collector-memory
//
// The collector's peak RSS while it receives 100 MB of hostile-but-valid traffic: batches of
// 500 KB whose items are 32 KB messages made of as many tiny objects as fit (the costliest JSON to
// hold parsed), plus a few deep and wide ones, at default options. The collector runs in a child
// process (dist/collector.js), so its RSS is its own. Traffic goes to 127.0.0.1 only.

import { fork } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { dirname, join } from 'node:path'

const here = dirname(fileURLToPath(import.meta.url))
const TOTAL_BYTES = 100 * 1024 * 1024

if (process.argv[2] === '--child') {
  const { createCollector } = await import(pathToFileURL(join(here, '..', 'dist', 'collector.js')).href)
  const collector = await createCollector({ port: 0 })
  process.send({ port: collector.port })
  process.on('message', async (msg) => {
    if (msg === 'stats') process.send({ maxRssMb: process.resourceUsage().maxRSS / 1024, records: collector.messages.length })
    if (msg === 'close') await collector.close().then(() => process.exit(0))
  })
} else {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const { port } = await next()
  // One item: ~32 KB of {"a":0} objects in an array.
  const item = (i) => ({
    type: 'track',
    userId: `u${i}`,
    event: 'Tiny Objects',
    properties: { list: Array.from({ length: 3900 }, (_, k) => ({ a: k % 10 })) },
  })
  const body = JSON.stringify({ batch: Array.from({ length: 15 }, (_, i) => item(i)) })
  const auth = 'Basic ' + Buffer.from('bench:').toString('base64')
  let sent = 0
  let statuses = {}
  const t0 = performance.now()
  while (sent < TOTAL_BYTES) {
    const status = await new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/batch',
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
    statuses[status] = (statuses[status] ?? 0) + 1
    sent += Buffer.byteLength(body)
  }
  child.send('stats')
  const stats = await next()
  child.send('close')
  const seconds = (performance.now() - t0) / 1000
  console.log(
    `collector memory: ${(sent / 1048576).toFixed(0)} MB in ${Object.values(statuses).reduce((a, b) => a + b, 0)} batches of ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB (answers ${JSON.stringify(statuses)}) in ${seconds.toFixed(1)} s`,
  )
  console.log(`peak RSS of the collector: ${stats.maxRssMb.toFixed(0)} MB; records kept: ${stats.records}`)
}
