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
  // Beside the Bun and Deno of test/package/runtimes.test.ts: a second run and CI find it, and
  // nothing is left in the OS temp directory.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
}
