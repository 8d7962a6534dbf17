import type { ResolvedOptions } from '../config/options'
import type { DurabilityFactory } from '../queue/durability'
import { startSpool } from '../durability/spool-start'
import { toError, type ClientLedger } from './ledger'

/**
 * The client's durability strategy: with the `spool` option, each message is written down before
 * the call returns (the spool's code is loaded only then); without it, none (memory only).
 */
export function spoolFactory(options: ResolvedOptions, ledger: ClientLedger): DurabilityFactory | undefined {
  const spool = options.spool
  if (spool === undefined) return undefined
  return (host) =>
    startSpool(spool, options.writeKey, options.host, host, {
      report: (err) => ledger.report(toError(err)),
      replay: (count, torn) => ledger.replay(count, torn),
    })
}
