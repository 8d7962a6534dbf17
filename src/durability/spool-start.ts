import { DeliveryError, QueueFullError, ServiceUnavailableError, SpoolError } from '../core/errors'
import type { SpoolFlow, SpoolFs, SpoolHost } from './spool/index'
import type { ResolvedSpool } from '../config/spool-option'
import { loadSpoolModule } from './spool-load'

/** What the spool reports to the client. */
export interface SpoolReports {
  report(err: unknown): void
  replay?(count: number, torn: number): void
}

/**
 * Loads the spool's code (on first use) and starts a client's spool, handing it the library's
 * error classes. Its records are sent with `writeKey` to `serviceHost` only.
 */
export function startSpool(spool: ResolvedSpool, writeKey: string, serviceHost: string, host: SpoolHost, reports: SpoolReports): SpoolFlow {
  const settings = {
    dir: spool.dir,
    maxBytes: spool.maxBytes,
    fs: spool.fs as SpoolFs | undefined,
    keepRejected: spool.keepRejected,
    writeKey,
    host: serviceHost,
  }
  return loadSpoolModule().createSpoolFlow(settings, host, {
    QueueFullError,
    SpoolError,
    ServiceUnavailableError,
    DeliveryError,
    report: (err) => reports.report(err),
    replay: (count, torn) => reports.replay?.(count, torn),
  })
}
