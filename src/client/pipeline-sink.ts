import { toError, type ClientLedger } from './ledger'
import { EventrailError } from '../core/errors'
import { describeThrown } from '../core/describe'
import { createWarnOnce } from '../plan/warn-once'
import type { FlushScheduler } from '../queue/scheduler'
import type { MessageType } from '../core/types'
import type { PipelineSink } from '../pipeline/pipeline'

/** Where a client's pipeline hands its outcomes: the scheduler's queue and the client's ledger. */
export function createPipelineSink(
  scheduler: FlushScheduler,
  ledger: ClientLedger,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): PipelineSink {
  const warnOnce = createWarnOnce('EVENTRAIL_PLAN_VIOLATION')
  const reportedAsync = new Set<string>()
  return {
    queue: (serialized, isAlias, callback, held, heldBytes) => scheduler.enqueue(serialized, isAlias, callback, held, heldBytes),
    refuse: (err, type, callback, throwIfUnhandled) => ledger.refuse(asRefusal(type, err), callback, throwIfUnhandled),
    filtered: (error, callback) => ledger.filtered(error, callback),
    pluginFailed: (error, callback) => ledger.pluginFailed(error, callback),
    roomBeside: (held, heldBytes, bytes) => scheduler.roomBeside(held, heldBytes, bytes),
    planFailed: (error, callback) => (error.sentAnyway ? ledger.report(error) : ledger.refuse(error, callback, false)),
    violation(error, sentAnyway) {
      ledger.violation(error)
      if (sentAnyway) {
        const what = error.event ?? error.where ?? 'message'
        warnOnce(what, `eventrail: ${error.message}. Sent anyway (planMode "report"); this warning is shown once per event.`)
      }
    },
    // The platform waits for the plugin, then for the flush of what it let go (never a rejection).
    holdOpen:
      waitUntil === undefined
        ? undefined
        : (work) => {
            try {
              waitUntil(work.then(() => scheduler.flush(false)).then(noop, noop))
            } catch (err) {
              ledger.report(toError(err))
            }
          },
    planIsAsync(what) {
      if (reportedAsync.has(what)) return
      reportedAsync.add(what)
      ledger.report(
        new EventrailError(
          `tracking plan: the schema of ${what} validates asynchronously; only synchronous schemas are checked on the call, so ${what} goes unchecked`,
        ),
      )
    },
  }
}

/**
 * What preparing a message threw, as the error it is refused with. What the caller's object throws
 * is already a ValidationError naming the field (the snapshot reads every field once, itself);
 * anything else failed in the client or the runtime, not in the message, and is not blamed on it.
 */
export function asRefusal(type: MessageType, err: unknown): Error {
  if (err instanceof EventrailError) return err
  return new EventrailError(
    `${type}: the client failed to queue the message (${describeThrown(err)}); the message itself was not at fault`,
    {
      cause: err,
    },
  )
}

function noop(): void {}
