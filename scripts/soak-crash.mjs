#!/usr/bin/env node
// The soak of the crash model (test/spool/crash.test.ts, issue 32): N seeded power cuts (default
// 10,000) on the model of the disk, each followed by a new client that delivers what the disk
// kept to a real HTTP server, through jest (which compiles the TypeScript test code). Prints each
// violation with its seed (`EVENTRAIL_CRASH_SEED=<n> npx jest test/spool/crash.test.ts` replays
// it), then a CRASH summary line; exits 1 when a violation was found.
//
//   node scripts/soak-crash.mjs [cuts] [first seed]
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cuts = Number(process.argv[2] ?? 10_000)
const first = Number(process.argv[3] ?? 1)
if (!Number.isSafeInteger(cuts) || cuts < 1 || !Number.isSafeInteger(first)) {
  process.stderr.write('usage: node scripts/soak-crash.mjs [cuts] [first seed]: cuts must be a positive integer\n')
  process.exit(2)
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const child = spawn(process.execPath, [jest, 'test/spool/crash.test.ts', '--verbose=false'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, EVENTRAIL_CRASH_CUTS: String(cuts), EVENTRAIL_CRASH_FIRST: String(first) },
})
child.on('close', (code) => process.exit(code ?? 1))
