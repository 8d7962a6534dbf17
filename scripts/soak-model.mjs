#!/usr/bin/env node
// The soak of the model-based test (test/model): random seeds in every configuration for N
// minutes (default 10), through jest (which compiles the TypeScript test code). Prints each
// violation with the seed and configuration that replay it
// (`EVENTRAIL_MODEL_SEED=<n> EVENTRAIL_MODEL_CONFIG=<name> npx jest test/model/model.test.ts`),
// then a SOAK summary line; exits 1 when a violation was found.
//
//   node scripts/soak-model.mjs [minutes]
//   EVENTRAIL_MODEL_CONCURRENCY=4 EVENTRAIL_MODEL_LENGTH=80 node scripts/soak-model.mjs 3
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const minutes = Number(process.argv[2] ?? 10)
if (!(minutes > 0)) {
  process.stderr.write('usage: node scripts/soak-model.mjs [minutes]: minutes must be a positive number\n')
  process.exit(2)
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const child = spawn(process.execPath, [jest, 'test/model/soak.test.ts', '--verbose=false'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, EVENTRAIL_MODEL_SOAK_MS: String(Math.round(minutes * 60_000)) },
})
child.on('close', (code) => process.exit(code ?? 1))
