import type { Callback } from '../core/types'
import type { MessagePipeline } from '../pipeline/pipeline'
import type { FlushScheduler } from '../queue/scheduler'
import type { ClientLedger } from './ledger'

/**
 * `flush()`: messages still in an async plugin are waited for, then flushed with the rest; the
 * outcome goes to `callback`, else resolves or rejects (see `ClientLedger.awaitOutcome`).
 */
export function flushClient(
  ledger: ClientLedger,
  scheduler: FlushScheduler,
  pipeline: MessagePipeline | undefined,
  callback: Callback | undefined,
): Promise<void> {
  const inPlugins = pipeline?.settled()
  const wantBatch = callback !== undefined
  const outcome = inPlugins === undefined ? scheduler.flush(wantBatch) : inPlugins.then(() => scheduler.flush(wantBatch))
  return ledger.awaitOutcome(outcome, callback)
}

/**
 * `closeAndFlush()`: intake stops; messages still in an async plugin go on (within the timeout)
 * and later ones are refused. Past the timeout, those still in a plugin end with a TimeoutError,
 * as the queued ones do; the scheduler gets what is left of the timeout.
 */
export function closeClient(
  ledger: ClientLedger,
  scheduler: FlushScheduler,
  pipeline: MessagePipeline | undefined,
  timeoutMs: number | undefined,
): Promise<void> {
  pipeline?.close()
  const inPlugins = pipeline?.settled(timeoutMs)
  if (inPlugins === undefined) return ledger.awaitOutcome(scheduler.close(timeoutMs), undefined)
  const started = Date.now()
  const left = (): number | undefined => (timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - (Date.now() - started)))
  return ledger.awaitOutcome(
    inPlugins.then(() => {
      if (timeoutMs !== undefined) pipeline?.giveUp(timeoutMs)
      return scheduler.close(left())
    }),
    undefined,
  )
}
