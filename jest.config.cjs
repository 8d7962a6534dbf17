const { availableParallelism } = require('node:os')

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  moduleNameMapper: {
    '^eventrail$': '<rootDir>/src/index.ts',
    '^eventrail/testing$': '<rootDir>/src/testing/index.ts',
    '^eventrail/context$': '<rootDir>/src/context-entry.ts',
  },
  testTimeout: 20000,
  // Workers for the waiting, not for the cores: most of the suite's time is real clocks, servers on
  // 127.0.0.1 and child processes (a run on two cores used 2.5 min of CPU in 8 min). Jest's
  // default (cores - 1) ran one file at a time on two cores. Two a core, 4 to 8 (~300 MB each):
  // more would only crowd the files that do use the CPU.
  maxWorkers: Math.min(8, Math.max(4, availableParallelism() * 2)),
  // A directory per run for what its files share: the package packed and installed once
  // (test/helpers/packed.ts) for test/package and test/edge.
  globalSetup: '<rootDir>/test/helpers/global-setup.cjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.cjs',
  // Beside the Bun and Deno of test/package/runtimes.test.ts: a second run and CI find it, and
  // nothing is left in the OS temp directory.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
}
