// One import run in a fresh process, for bench/import.mjs:
//   node bench/import-child.mjs cli FILE HOST RESULT     eventrail import FILE (the built CLI, --json)
//   node bench/import-child.mjs legacy FILE HOST RESULT  the loop a user writes today with analytics-node 6
// Writes { maxRssMb, ... } to RESULT when the process exits; the CLI's JSON events go to stdout.

import { createReadStream, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [mode, file, host, resultPath, ...extra] = process.argv.slice(2)
const result = {}
process.on('exit', () => {
  result.maxRssMb = process.resourceUsage().maxRSS / 1024
  writeFileSync(resultPath, JSON.stringify(result))
})

if (mode === 'cli') {
  // The bin reads process.argv.slice(2), as when npx runs it.
  process.argv = [
    process.execPath,
    join(root, 'dist', 'cli.cjs'),
    'import',
    file,
    '--write-key',
    'bench-write-key',
    '--host',
    host,
    '--json',
    // Each round imports the same file again: its checkpoint from the last round is replaced.
    '--restart',
    ...extra,
  ]
  await import(join(root, 'dist', 'cli.cjs'))
} else if (mode === 'legacy') {
  // What people write today: read the lines, track() each, then flush(). No backpressure: the
  // client's own queue takes what it takes (and drops what it cannot).
  const Analytics = createRequire(import.meta.url)('analytics-node')
  const analytics = new Analytics('bench-write-key', { host, errorHandler: () => {} })
  let errors = 0
  const t0 = performance.now()
  let lines = 0
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue
    lines += 1
    const message = JSON.parse(line)
    delete message.type
    try {
      analytics.track(message, (err) => err && (errors += 1))
    } catch {
      errors += 1
    }
  }
  await new Promise((resolve) => analytics.flush(() => resolve()))
  result.wallMs = performance.now() - t0
  result.lines = lines
  result.errors = errors
} else throw new Error(`unknown mode ${mode}`)
