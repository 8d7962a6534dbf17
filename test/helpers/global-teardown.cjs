// Removes the run's shared directory (global-setup.cjs).
const { rmSync } = require('node:fs')

module.exports = () => {
  const dir = process.env.EVENTRAIL_TEST_RUN_DIR
  if (dir) rmSync(dir, { recursive: true, force: true })
}
