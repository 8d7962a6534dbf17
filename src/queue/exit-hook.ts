import { onProcessEvent } from '../runtime'

/** Something with queued work that must be drained before the process exits. */
export interface Drainable {
  drainBeforeExit(): void
}

const active = new Set<Drainable>()
let installed = false

// One process-wide `beforeExit` listener serves every instance: thousands of instances add one
// listener, and only instances with pending work are held here (an idle one can be collected).
function onBeforeExit(): void {
  for (const drainable of [...active]) drainable.drainBeforeExit()
}

/** Marks an instance as holding work: it is drained when the event loop runs dry. */
export function holdsWork(drainable: Drainable): void {
  active.add(drainable)
  // Installed only once `process.on` has succeeded; where it is missing (Workers, the Edge
  // Runtime) or throws, the next call tries again and the caller's enqueue never sees an error.
  if (!installed) installed = onProcessEvent('beforeExit', onBeforeExit)
}

/** Marks an instance as idle again. */
export function releasesWork(drainable: Drainable): void {
  active.delete(drainable)
}
