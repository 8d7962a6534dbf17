// One scenario for one client, in a fresh process (forked by bench/run.mjs with --expose-gc).
// Receives { scenario, params }; may ask the runner to act at a checkpoint; sends { result }.

import { SCENARIOS } from './lib/scenarios.mjs'

let pending
process.on('message', (msg) => {
  if (msg.type === 'continue') {
    const resolve = pending
    pending = undefined
    resolve?.(msg.data)
  } else if (msg.type === 'job') {
    void run(msg.scenario, msg.params)
  }
})

function checkpoint(name) {
  return new Promise((resolve) => {
    pending = resolve
    process.send({ type: 'checkpoint', name })
  })
}

async function run(scenario, params) {
  try {
    const result = await SCENARIOS[scenario](params, checkpoint)
    process.send({ type: 'result', result }, () => process.exit(0))
  } catch (err) {
    process.send({ type: 'error', error: String(err?.stack ?? err) }, () => process.exit(1))
  }
}
