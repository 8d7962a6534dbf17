import { onProcessEvent } from './runtime'

/** Something with queued work that must be drained before the process exits. */
export interface Drainable {
  drainBeforeExit(): void
  /** Messages waiting to be sent. */
  readonly queued: number
  /** Messages sent or waiting to be retried, without an outcome yet. */
  readonly inFlight: number
  /** False for a client that sends nothing (`enable: false`): its messages are not lost at exit. */
  readonly sends: boolean
  /** Messages an exit now would lose (with a spool, only those not on disk); `queued + inFlight` when absent. */
  readonly atRisk?: number
}

interface ExitingProcess {
  readonly stderr?: { write?(text: string): unknown }
}

const active = new Set<Drainable>()
let installed = false

// One process-wide `beforeExit` listener serves every instance: thousands of instances add one
// listener, and only instances with pending work are held here (an idle one can be collected).
function onBeforeExit(): void {
  for (const drainable of [...active]) drainable.drainBeforeExit()
}

/**
 * The line written on standard error when the process exits with messages not yet delivered
 * (`process.exit()` before `closeAndFlush()`, or an uncaught exception); `undefined` when none.
 */
export function lostAtExitText(count: number): string | undefined {
  if (count === 0) return undefined
  const [messages, are] = count === 1 ? ['1 message', 'is'] : [`${count} messages`, 'are']
  return `eventrail: the process is exiting with ${messages} not yet delivered, which ${are} lost; call \`await analytics.closeAndFlush()\` before process.exit() to send them\n`
}

// `exit` runs once, synchronously, as the process ends: the only thing left to do is to say what
// is lost. This is the library's one write to the console, because nobody can be told later.
function onExit(): void {
  let count = 0
  for (const drainable of active) if (drainable.sends) count += drainable.atRisk ?? drainable.queued + drainable.inFlight
  const text = lostAtExitText(count)
  if (text === undefined) return
  try {
    const stderr = (globalThis as { process?: ExitingProcess }).process?.stderr
    if (typeof stderr?.write === 'function') stderr.write(text)
  } catch {
    // A closed or missing stderr: there is no one left to tell.
  }
}

/** Marks an instance as holding work: it is drained when the event loop runs dry. */
export function holdsWork(drainable: Drainable): void {
  active.add(drainable)
  // Installed only once `process.on` has succeeded; where it is missing (Workers, the Edge
  // Runtime) or throws, the next call tries again and the caller's enqueue never sees an error.
  if (!installed) {
    installed = onProcessEvent('beforeExit', onBeforeExit)
    if (installed) onProcessEvent('exit', onExit)
  }
}

/** Marks an instance as idle again. */
export function releasesWork(drainable: Drainable): void {
  active.delete(drainable)
}
