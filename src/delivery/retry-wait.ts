import { DeliveryError, ServiceUnavailableError } from '../core/errors'
import { givenUp } from './attempt-errors'
import type { DeliveryContext, RequestInfo } from './deliver'

/**
 * Waits `delayMs` before a request's retry, then takes its in-flight slot and its turn under the
 * request-rate limit again. Rejects when `stop` aborts (a TimeoutError), when the outage breaker
 * opens meanwhile (its ServiceUnavailableError), or with a DeliveryError when the wait itself failed.
 */
export async function waitForRetry(
  path: string,
  delayMs: number,
  ctx: DeliveryContext,
  stop: AbortSignal,
  last: { status: number | undefined; attempts: number },
  place: RequestInfo['place'],
): Promise<void> {
  // A request waiting for its retry holds neither an in-flight slot nor a batch place: one
  // request's retries never hold up the others (it takes both back, over the limit if need be).
  place?.lend()
  ctx.pauseSlot()
  let holdsPlace = false
  let holdsSlot = false
  try {
    await ctx.sleep(delayMs, stop, path)
    place?.reclaim()
    holdsPlace = true
    await ctx.resumeSlot(stop)
    holdsSlot = true
    await ctx.rateSlot(stop)
  } catch (err) {
    // The request ends here and gives its slot and place back: it must hold them again to give.
    if (!holdsPlace) place?.reclaim()
    if (!holdsSlot) ctx.reclaimSlot()
    if (stop.aborted) throw givenUp(path, stop.reason)
    if (err instanceof ServiceUnavailableError) throw err
    // Not the closeAndFlush timeout: something failed while waiting (a timer the runtime refused).
    const cause = err instanceof Error ? err : new Error(String(err))
    throw new DeliveryError(`${path}: the wait before a retry failed (${cause.message})`, last.status, last.attempts, { cause })
  }
}
