// The cost of plugins and a tracking plan on track(), in CPU per call: no plugins and no plan (the
// path of every client without them), 1 and 10 no-op plugins, a `context` option, and a Zod plan in
// report mode. Each case runs in its own child process (a fresh JIT), against the built dist/,
// with `enable: false` (nothing is sent: the cost measured is the call's own, queue included).
// Alternates the cases for `--rounds` rounds and prints the median ns per call and the ratio to
// the first case. Targets (issue 24): 10 no-op plugins ≤ 1.10x; the plan ≤ +1 µs per call.
//   npm run bench:plugins [-- --calls=200000] [-- --rounds=5]

import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startSink } from './lib/sink-process.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const CALLS = option('calls', 200_000)
const ROUNDS = option('rounds', 5)
const CASES = ['none', 'plugins-1', 'plugins-10', 'context', 'plan-report']

if (process.argv[2] === '--child') {
  const { Analytics } = await import('../dist/index.js')
  const kind = process.argv[3]
  const calls = Number(process.argv[4])
  // With a sink's URL: the client CPU per event as the issue counts it, sending included (default
  // options, the caller yielding every 100 calls like a busy server, until every event is acknowledged).
  const host = process.argv[5]
  const options =
    host === undefined
      ? { enable: false, flushAt: 1000, maxQueueSize: calls + 1, maxQueueBytes: 2 ** 31 - 1 }
      : { host, errorHandler: () => {} }
  const noop = (i) => ({ name: `noop-${i}`, process() {} })
  if (kind === 'plugins-1') options.plugins = [noop(0)]
  if (kind === 'plugins-10') options.plugins = Array.from({ length: 10 }, (_, i) => noop(i))
  if (kind === 'context') options.context = { app: { name: 'bench', version: '1.0.0' } }
  if (kind === 'plan-report') {
    const { z } = await import('zod')
    const { definePlan } = await import('../dist/plan.js')
    options.plan = definePlan({
      events: { 'Order Completed': z.object({ orderId: z.string(), total: z.number(), currency: z.enum(['USD', 'EUR']) }) },
    })
    options.planMode = 'report'
  }
  const analytics = new Analytics('bench-key', options)
  const message = (i) => ({
    userId: `user-${i % 1000}`,
    event: 'Order Completed',
    properties: { orderId: `o-${i}`, total: i % 100, currency: 'USD' },
  })
  for (let i = 0; i < 20_000; i++) analytics.track(message(i)) // warm up
  await analytics.flush()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < calls; i++) {
    analytics.track(message(i))
    if (host !== undefined && i % 100 === 99) await new Promise((resolve) => setImmediate(resolve))
  }
  if (host !== undefined) await analytics.flush()
  const cpu = process.cpuUsage(cpu0)
  await analytics.flush()
  process.send({ nsPerCall: ((cpu.user + cpu.system) * 1000) / calls })
} else {
  const sink = startSink()
  const host = `http://127.0.0.1:${await sink.ready}`
  const call = await measureAll([])
  const cpu = await measureAll([host])
  sink.child.kill()
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  console.log(
    `| case | ns per track() (median of ${ROUNDS}) | vs no plugins | client CPU per event, sending included (ns) | vs no plugins |`,
  )
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (const kind of CASES) {
    const [a, b] = [median(call[kind]), median(cpu[kind])]
    console.log(
      `| ${kind} | ${a.toFixed(0)} | ${(a / median(call.none)).toFixed(2)}x | ${b.toFixed(0)} | ${(b / median(cpu.none)).toFixed(2)}x |`,
    )
  }
}

async function measureAll(extra) {
  const results = Object.fromEntries(CASES.map((c) => [c, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of CASES) {
      const child = fork(fileURLToPath(import.meta.url), ['--child', kind, String(CALLS), ...extra], {
        env: { ...process.env, NODE_ENV: 'production' },
      })
      const { nsPerCall } = await new Promise((resolve, reject) => {
        child.once('message', resolve)
        child.once('error', reject)
      })
      child.kill()
      results[kind].push(nsPerCall)
    }
  }
  return results
}
