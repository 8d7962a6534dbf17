// A child process driven by its messages: shared by the kill -9 and replay benches.

import { fork } from 'node:child_process'

/** Forks a script; `next(type)` resolves with its next message of that type, `exited` on exit. */
export function forkWith(script, env, execArgv = []) {
  const child = fork(script, [], { env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr.on('data', (c) => (stderr += c))
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const next = (type) =>
    new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (m?.type !== type) return
        child.off('message', onMessage)
        resolve(m)
      }
      child.on('message', onMessage)
      exited.then(({ code, signal }) => reject(new Error(`${script} exited (${code ?? signal}) before '${type}': ${stderr.slice(-500)}`)))
    })
  return { child, next, exited }
}
