// One directory per jest run, for what the test files of the run share (test/helpers/packed.ts: the
// package packed and installed once). Jest's workers start after this and inherit the variable;
// global-teardown.cjs removes the directory.
const { mkdtempSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')

module.exports = () => {
  process.env.EVENTRAIL_TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'eventrail-run-'))
}
