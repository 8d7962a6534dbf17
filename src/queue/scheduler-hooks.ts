import type { ServiceUnavailableError } from '../core/errors'
import type { RetryInfo } from '../delivery/deliver'
import type { QueuedEntry } from './queue'

/** What the scheduler tells its owner. */
export interface SchedulerHooks {
  /**
   * A request ended: delivered (`error` undefined) or failed for good; `replayed` of its messages
   * came from a spool a gone process left. Called before callbacks run.
   */
  requestDone(
    path: string,
    entries: readonly QueuedEntry[],
    bytes: number,
    error: Error | undefined,
    durationMs?: number,
    replayed?: number,
  ): void
  /** A request is about to be retried. */
  retry(info: RetryInfo): void
  /** Something the library could not hand to anyone else (a callback threw). */
  report(err: unknown): void
  /** The outage breaker opened (with the error messages now get) or closed (after `downMs`). */
  breaker(
    change: { readonly state: 'open'; readonly error: ServiceUnavailableError } | { readonly state: 'closed'; readonly downMs: number },
  ): void
}
