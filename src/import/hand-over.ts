import { ValidationError } from '../core/errors'
import { QUEUE_PARSED_LINE } from '../core/internal'
import type { ParsedLine, PrepareMessage } from '../message/prepare'
import { prepareParsedLine } from '../message/prepare-line'
import { outcomeOnly } from '../queue/settle'
import type { Callback, MessageType } from '../core/types'
import type { ImportClient, SourceItem } from '../core/import-source'
import { decodeItem, type IdPolicy } from './to-message'

// An Analytics client's internal entry for a parsed line: validated as a call is, sent as written.
interface InternalQueues {
  [QUEUE_PARSED_LINE](type: MessageType, line: ParsedLine, callback: Callback, prepare: PrepareMessage<ParsedLine>): void
}

/** Gets the outcome of one item handed over: the item, its type (when known) and the error, if any, or that it was skipped. */
export type Settle = (item: SourceItem, type: MessageType | undefined, err: Error | undefined, isSkipped?: boolean) => void

/**
 * Hands one item of an import to the client: a line is decoded and given to the client's own
 * method, or to its internal entry for parsed lines when it is an `Analytics`. `settle` gets the
 * outcome exactly once: what the client reports, or why the item was refused before it reached
 * the client.
 */
export function handOver(client: ImportClient, item: SourceItem, ids: IdPolicy, settle: Settle): void {
  const queues = client as Partial<InternalQueues>
  if (item.error !== undefined) return settle(item, undefined, item.error)
  let decoded
  try {
    decoded = decodeItem(item.source as NonNullable<SourceItem['source']>, item.position, ids, item.textBytes)
  } catch (err) {
    // An object whose reading throws (a getter, a Proxy): refused, never left without an outcome.
    const reason = `could not be read (${err instanceof Error ? err.message : String(err)})`
    return settle(item, undefined, err instanceof ValidationError ? err : new ValidationError('item', reason, 'importMessages'))
  }
  if (decoded.skip === true) return settle(item, undefined, undefined, true)
  if (decoded.error !== undefined) return settle(item, decoded.type, decoded.error)
  const type = decoded.type
  const callback = outcomeOnly((err) => settle(item, type, err ?? undefined))
  const queueLine = queues[QUEUE_PARSED_LINE]
  try {
    if (decoded.line !== undefined && typeof queueLine === 'function')
      queueLine.call(client, type, decoded.line, callback, prepareParsedLine)
    else client[type](decoded.message as never, callback)
  } catch (err) {
    // The client reports through the callback; a throw here is a bug or a foreign client.
    settle(item, type, err instanceof Error ? err : new Error(String(err)))
  }
}
