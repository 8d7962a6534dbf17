import { callbackError } from '../message/positional'
import { prepareCall, type PrepareMessage } from '../message/prepare'
import type { Serialized } from '../message/serialize'
import type { MessagePipeline } from '../pipeline/pipeline'
import type { FlushScheduler } from '../queue/scheduler'
import type { Callback, MessageType } from '../core/types'
import type { ClientLedger } from './ledger'
import { asRefusal } from './pipeline-sink'
import { enqueueInFrame, type AmbientFrame } from './ambient'

/**
 * One call's message on its way in: through the pipeline when the client has one, else read once,
 * validated, normalized and serialized (`prepare`), then queued. What refuses it (a rule, a full
 * queue, a closed client) is its outcome, given by the ledger after the call returns; a callback
 * that is not a function leaves only `errorHandler` or a throw.
 */
export function enqueueMessage<T>(
  ledger: ClientLedger,
  scheduler: FlushScheduler,
  pipeline: MessagePipeline | undefined,
  clock: () => string,
  type: MessageType,
  message: T,
  callback: Callback | undefined,
  prepare: PrepareMessage<T>,
): void {
  if (callback !== undefined && typeof callback !== 'function') {
    ledger.refuse(callbackError(type, message, callback), undefined, true)
    return
  }
  if (pipeline !== undefined) {
    pipeline.enqueue(type, message, callback, 'call', true)
    return
  }
  let serialized: Serialized
  try {
    // Read once: validation, normalization and serialization see only the client's own copy.
    serialized = prepare(type, message, clock)
  } catch (err) {
    ledger.refuse(asRefusal(type, err), callback, true)
    return
  }
  const refused = scheduler.enqueue(serialized, type === 'alias', callback)
  if (refused !== undefined) ledger.refuse(refused, callback, false)
}

/**
 * A call's message: inside a request's context (`eventrail/context`, `frame`) filled by the frame
 * first, then on the usual way in (see {@link enqueueMessage}). Imports are not calls of a request:
 * they take the usual way whatever the context.
 */
export function enqueueCall<T>(
  ledger: ClientLedger,
  scheduler: FlushScheduler,
  pipeline: MessagePipeline | undefined,
  clock: () => string,
  frame: AmbientFrame | undefined,
  type: MessageType,
  message: T,
  callback: Callback | undefined,
  prepare: PrepareMessage<T>,
): void {
  if (frame === undefined || prepare !== prepareCall || (callback !== undefined && typeof callback !== 'function')) {
    enqueueMessage(ledger, scheduler, pipeline, clock, type, message, callback, prepare)
    return
  }
  enqueueInFrame(
    frame,
    type,
    message,
    pipeline !== undefined,
    (token) => enqueueMessage(ledger, scheduler, pipeline, clock, type, token, callback, prepareCall),
    (error) => ledger.refuse(error, callback, false),
  )
}
