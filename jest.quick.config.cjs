// `npm run test:quick`: the inner loop, under 30 s on two cores. Unit tests and in-process
// integration (the client against servers on 127.0.0.1 in the test's own process), no build
// needed: what spawns Node processes, packs the package, uses dist/ or waits on long real-clock
// timers stays in `npm test`, which runs everything (this list included).
const base = require('./jest.config.cjs')

module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/unit/**/*.test.ts',
    '<rootDir>/test/plugins/**/*.test.ts',
    '<rootDir>/test/plan/**/*.test.ts',
    '<rootDir>/test/otel/**/*.test.ts',
    '<rootDir>/test/context/**/*.test.ts',
    '<rootDir>/test/architecture/**/*.test.ts',
    '<rootDir>/test/integration/**/*.test.ts',
    '<rootDir>/test/collector/**/*.test.ts',
    '<rootDir>/test/acceptance/client-spec.test.ts',
    '<rootDir>/test/testing/recorder.test.ts',
  ],
  // Each of these needs dist/ (npm run build) or a browser.
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/integration/(client|exit-warning)\\.test\\.ts$',
    '<rootDir>/test/collector/(browser|dev-stop|out-backpressure|plan|plan-patterns)\\.test\\.ts$',
  ],
  // Nothing here packs the package: no run directory (test/helpers/global-setup.cjs).
  globalSetup: undefined,
  globalTeardown: undefined,
}
