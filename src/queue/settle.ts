import { messageText } from '../message/serialize'
import type { QueuedEntry } from './queue'
import type { Callback, Message } from '../core/types'

const OUTCOME_ONLY = Symbol('eventrail.outcomeOnly')

/**
 * Marks a callback of the library's own (the awaitable methods, the importer) that takes only the
 * error: for a request whose callbacks are all such, the messages are not parsed back to hand them
 * a `batch` they would not read (measured: 13 % of an import's CPU).
 */
export function outcomeOnly<F extends (err: Error | undefined) => void>(callback: F): F {
  ;(callback as F & { [OUTCOME_ONLY]?: true })[OUTCOME_ONLY] = true
  return callback
}

function wantsBatch(callback: unknown): boolean {
  return (callback as { [OUTCOME_ONLY]?: true })[OUTCOME_ONLY] !== true
}

/**
 * Gives every entry its one outcome: its callback runs once, with `error` when it failed and the
 * messages of its request as sent. The messages are parsed from the JSON already sent, once a
 * request, and only when some entry has a callback. A callback that throws cannot disturb the
 * others: what it threw goes to `report`.
 */
export function settle(entries: readonly QueuedEntry[], error: Error | undefined, report: (err: unknown) => void): void {
  let batch: Message[] | undefined
  for (const entry of entries) {
    if (entry.callback === undefined) continue
    if (batch === undefined && wantsBatch(entry.callback)) batch = parseBatch(entries)
    try {
      entry.callback(error, batch)
    } catch (err) {
      report(err)
    }
  }
}

/** The messages of entries, as they were sent. */
export function parseBatch(entries: readonly QueuedEntry[]): Message[] {
  return entries.map((entry) => JSON.parse(messageText(entry)) as Message)
}

/** Runs a callback of a message that was in no request: with `error` and no batch; a throw goes to `report`. */
export function settleAlone(
  callback: (err: Error | undefined, batch: undefined) => void,
  error: Error,
  report: (err: unknown) => void,
): void {
  try {
    callback(error, undefined)
  } catch (err) {
    report(err)
  }
}

/** Runs a callback for a message that was never queued, after the current call returns. */
export function settleLater(
  callback: (err: Error | undefined, batch: undefined) => void,
  error: Error,
  report: (err: unknown) => void,
): void {
  void Promise.resolve().then(() => settleAlone(callback, error, report))
}

/**
 * Messages kept outside memory (on the disk only) end with `error`: counted by `requestDone` as
 * failed, and each callback run once, with no batch (they were in no request).
 */
export function settleParked(
  callbacks: readonly Callback[],
  error: Error,
  hooks: {
    requestDone(path: string, entries: readonly QueuedEntry[], bytes: number, error: Error | undefined): void
    report(err: unknown): void
  },
): void {
  const entries = callbacks.map((callback): QueuedEntry => ({
    seq: 0,
    at: 0,
    json: '',
    bytes: 0,
    head: undefined,
    isAlias: false,
    callback,
  }))
  hooks.requestDone('', entries, 0, error)
  for (const callback of callbacks) settleAlone(callback, error, (err) => hooks.report(err))
}
