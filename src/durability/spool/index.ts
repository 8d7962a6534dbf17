/**
 * The disk spool, loaded only by a client made with the `spool` option (never by
 * `import 'eventrail'`): built on its own as `dist/spool.cjs`, which the client loads on the
 * first spool client's construction. It imports nothing of the library at run time; what it needs (the
 * error classes, so that `instanceof` works) the client hands it.
 * @module
 */
import { SpoolFlow } from './flow'
import type { SpoolDeps, SpoolHost } from './types'
import type { SpoolSettings } from './spool'
import { tenantOf } from './parts'

export type { SpoolDeps, SpoolHost, SpoolStats } from './types'
export type { SpoolFlow } from './flow'
export type { SpoolSettings } from './spool'
export type { SpoolFs } from './files'

/** How a client sets up its spool: its records may be sent with `writeKey` to `host` only. */
export type ClientSpoolSettings = Omit<SpoolSettings, 'tenant'> & { readonly writeKey: string; readonly host: string }

/** The message flow of a spool client. */
export function createSpoolFlow(settings: ClientSpoolSettings, host: SpoolHost, deps: SpoolDeps): SpoolFlow {
  const { writeKey, host: serviceHost, ...rest } = settings
  return new SpoolFlow({ ...rest, tenant: tenantOf(writeKey, serviceHost) }, host, deps)
}

// What `eventrail spool` reads and deletes with: the spool's own readers and trust checks, one copy
// of them in the package (the command loads this module as a client does).
export { surveySpool, waitingRecords } from './survey'
export type { OwnerState, PartSurvey, SegmentSurvey, WaitingRecord } from './survey'
export { readRejected } from './rejected'
export type { RejectedEntry, RejectedSet } from './rejected'
export { purge } from './purge'
export type { PurgeTargets } from './purge'
export { realFs } from './files'
export { tenantOf }
