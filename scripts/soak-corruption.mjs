#!/usr/bin/env node
// Corruption fuzzing of the spool (test/spool/corruption.test.ts, issue 32): a segment of N bytes
// (default 1 MiB) and its ack file, read back by the spool's reading functions with a bit flipped
// at every offset of the segment (16 offsets, in 16 records, a run), the segment cut every
// EVENTRAIL_CORRUPTION_CUT_STRIDE bytes (default 16), and every offset of the ack file flipped
// and cut; prints each problem and a CORRUPTION summary line, and exits 1 when one was found.
//
//   node scripts/soak-corruption.mjs [bytes]
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const bytes = Number(process.argv[2] ?? 1024 * 1024)
if (!Number.isSafeInteger(bytes) || bytes < 1024) {
  process.stderr.write('usage: node scripts/soak-corruption.mjs [bytes]: bytes must be an integer of at least 1024\n')
  process.exit(2)
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const child = spawn(process.execPath, [jest, 'test/spool/corruption.test.ts', '-t', 'the soak', '--verbose=false'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, EVENTRAIL_CORRUPTION_BYTES: String(bytes) },
})
child.on('close', (code) => process.exit(code ?? 1))
