import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { crashTrial } from './crash-model'
import { deadPid, failOnUnhandledRejections } from './helpers'

// Issue 32, "a crash model, tested": seeded power cuts on a model of the disk (crash-fs.ts) that
// keeps what was written apart from what was synced; after each, a new client on what the disk
// kept delivers to a real HTTP server, and what arrived is checked (crash-model.ts). A failing
// seed is printed; replay it with EVENTRAIL_CRASH_SEED=<seed> npx jest test/spool/crash.test.ts.
// `npm run soak:crash -- 10000` runs 10,000 of them.

failOnUnhandledRejections()
let server: FaultServer
let pid: number
beforeAll(async () => {
  server = await startFaultServer()
  pid = await deadPid()
})
afterAll(() => server.close())

const only = process.env.EVENTRAIL_CRASH_SEED
const seeds = only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env.EVENTRAIL_CRASH_CUTS ?? 60) }, (_, i) => 1 + i)

it(`${seeds.length} seeded power cuts: every message accepted before the last good sync arrives, nothing else, nothing corrupt, at most twice`, async () => {
  const failed: string[] = []
  let midway = 0
  let syncFailures = 0
  for (const seed of seeds) {
    const trial = await crashTrial(seed, server, pid)
    if (trial.cutMidway) midway += 1
    syncFailures += trial.failedSyncs
    if (trial.violations.length > 0) failed.push(`seed ${seed}: ${trial.violations.slice(0, 3).join('; ')}`)
  }
  expect(failed).toEqual([])
  // The cuts fall in the middle of runs (not only at their end), and some syncs failed.
  if (only === undefined) {
    expect(midway).toBeGreaterThan(seeds.length / 3)
    expect(syncFailures).toBeGreaterThan(0)
  }
}, 60_000)
