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
  },
  testTimeout: 20000,
}
