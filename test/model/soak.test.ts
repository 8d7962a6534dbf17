import { randomInt } from 'node:crypto'
import { CONFIGS } from './configs'
import { STRICT_ALL, strictOnly } from './known-bugs'
import { runSequence } from './runner'
import { watchProcess } from './settling'

// The long run of the model-based test (model.test.ts): random seeds in every configuration, a
// few runs at a time, for EVENTRAIL_MODEL_SOAK_MS milliseconds. Skipped unless that is set; run it
// with `node scripts/soak-model.mjs [minutes]`. Each violation is printed as it is found, with
// the seed and configuration that replay it; a summary line ends the run; 0 violations expected.
// Like model.test.ts, it leaves out the configurations and server modes of known bugs
// (known-bugs.ts) unless EVENTRAIL_MODEL_STRICT_ALL=1.

const soakMs = Number(process.env.EVENTRAIL_MODEL_SOAK_MS ?? 0)
const LENGTH = Number(process.env.EVENTRAIL_MODEL_LENGTH ?? 60)
const AT_ONCE = Number(process.env.EVENTRAIL_MODEL_CONCURRENCY ?? 4)

;(soakMs > 0 ? it : it.skip)(
  'soak: random seeds in every configuration',
  async () => {
    const warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const watch = watchProcess()
    const deadline = Date.now() + soakMs
    const totals = { runs: 0, ops: 0, messages: 0, violations: 0 }
    const perConfig: Record<string, number> = {}
    const violations: string[] = []
    const print = (line: string): void => void process.stdout.write(`${line}\n`)
    const configs = CONFIGS.filter((c) => STRICT_ALL || !strictOnly(c.name))
    let next = 0
    const worker = async (): Promise<void> => {
      while (Date.now() < deadline) {
        const config = configs[next++ % configs.length]
        const seed = randomInt(1, 2 ** 31)
        const result = await runSequence(config, seed, LENGTH, STRICT_ALL)
        totals.runs += 1
        totals.ops += result.ops
        totals.messages += result.messages
        perConfig[config.name] = (perConfig[config.name] ?? 0) + 1
        const found = [...result.violations, ...watch.take().map((v) => `${v} (runs in flight around this one)`)]
        for (const v of found) {
          const line = `VIOLATION [EVENTRAIL_MODEL_SEED=${seed} EVENTRAIL_MODEL_CONFIG=${config.name} EVENTRAIL_MODEL_LENGTH=${LENGTH}${STRICT_ALL ? ' EVENTRAIL_MODEL_STRICT_ALL=1' : ''}] ${v}`
          violations.push(line)
          print(line)
        }
        totals.violations += found.length
      }
    }
    try {
      await Promise.all(Array.from({ length: AT_ONCE }, worker))
    } finally {
      watch.stop()
      warnings.mockRestore()
    }
    print(`SOAK ${JSON.stringify({ ...totals, minutes: +(soakMs / 60_000).toFixed(2), length: LENGTH, strictAll: STRICT_ALL, perConfig })}`)
    expect(violations).toEqual([])
  },
  soakMs + 120_000,
)
