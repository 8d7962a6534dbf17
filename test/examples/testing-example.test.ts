// Runs examples/testing.test.ts, the example test of an app that uses eventrail/testing, as part
// of this suite: jest's roots are test/, so the example's own tests are registered from here.
// 'eventrail' and 'eventrail/testing' map to src/ (jest.config.cjs).
import '../../examples/testing.test'
