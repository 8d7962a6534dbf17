import type { HostChange } from './outage'
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
  /**
   * A host's outage breaker opened (with its error) or closed (after `downMs`); `activeHost` is where
   * requests go now, none while every host is down.
   */
  breaker(change: HostChange): void
}
