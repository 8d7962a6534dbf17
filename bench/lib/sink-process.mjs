// The sink (bench/lib/sink.cjs) in a process of its own, driven over IPC: shared by bench/run.mjs
// and bench/in-flight.mjs.

import { fork } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** Forks the sink; `ready` resolves with its port, `send(cmd, options)` with its answer. */
export function startSink() {
  const child = fork(join(here, 'sink.cjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let nextId = 0
  const pending = new Map()
  child.on('message', (msg) => {
    if (msg.id !== undefined && pending.has(msg.id)) {
      pending.get(msg.id)(msg.result)
      pending.delete(msg.id)
    }
  })
  const ready = new Promise((resolve) => child.on('message', (msg) => msg.type === 'ready' && resolve(msg.port)))
  const send = (cmd, options) =>
    new Promise((resolve) => {
      const id = nextId++
      pending.set(id, resolve)
      child.send({ id, cmd, options })
    })
  return { child, ready, send }
}
