import type { DurabilityHost } from '../../queue/durability'

/** What the client's scheduler lets the spool see and do. */
export type SpoolHost = DurabilityHost

/** What the library gives the spool: its error classes (one copy of each) and where to report. */
export interface SpoolDeps {
  readonly QueueFullError: new (message: string) => Error
  readonly SpoolError: new (code: string, message: string) => Error
  readonly ServiceUnavailableError: new (message: string) => Error
  readonly DeliveryError: new (message: string) => Error
  /** The disk refuses writes (a `SpoolError`). */
  report(error: Error): void
  /** Records of a gone client were taken over: `count` to send, `torn` skipped. */
  replay(count: number, torn: number): void
}

export type { SpoolStats } from '../../queue/durability'
