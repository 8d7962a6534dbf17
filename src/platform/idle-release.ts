import { setUnrefTimeout, type Timer } from './timers'

// Where a timer cannot be unref'd (Workers, the Edge Runtime, Deno: a timer is a number there),
// a process-wide timer could keep a request's work alive or fire in another request's context:
// nothing is released there, as an isolate there lives no longer than its requests.
let canUnref: boolean | undefined

function timersCanUnref(): boolean {
  try {
    const handle: unknown = setTimeout(() => undefined, 0)
    clearTimeout(handle as ReturnType<typeof setTimeout>)
    return typeof handle === 'object' && handle !== null && typeof (handle as { unref?: unknown }).unref === 'function'
  } catch {
    return false
  }
}

/** Something that holds parts it needs only while it sends, and can let them go when idle. */
export interface IdleReleasable {
  /** Lets go of what an idle instance does not need; made again on its next send. */
  releaseIdle(): void
}

/** How long an instance stays idle before what it needed to send is released, ms. */
export const IDLE_RELEASE_MS = 5_000

const idleSince = new Map<IdleReleasable, number>()
let timer: Timer | undefined

// One process-wide unref'd timer serves every instance (an idle instance holds no timer of its
// own): it releases the instances idle for IDLE_RELEASE_MS and forgets them, so that an idle
// instance is held by nothing of the library's and can be collected.
function sweep(): void {
  timer = undefined
  const now = Date.now()
  let next = Infinity
  for (const [instance, since] of idleSince) {
    if (now - since < IDLE_RELEASE_MS) {
      next = Math.min(next, since + IDLE_RELEASE_MS)
      continue
    }
    idleSince.delete(instance)
    try {
      instance.releaseIdle()
    } catch {
      // Nothing to release is worth a failure in a background timer.
    }
  }
  if (next !== Infinity) timer = setUnrefTimeout(sweep, next - now)
}

/** The instance has nothing left to send: release its sending parts if it stays so. */
export function markIdle(instance: IdleReleasable): void {
  if (!(canUnref ??= timersCanUnref())) return
  idleSince.set(instance, Date.now())
  timer ??= setUnrefTimeout(sweep, IDLE_RELEASE_MS)
}

/** The instance sends again: keep what it has. */
export function markBusy(instance: IdleReleasable): void {
  idleSince.delete(instance)
}
