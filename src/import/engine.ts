import { QueueFullError, ValidationError } from '../core/errors'
import { MAX_TIMER_MS } from '../core/limits'
import { FilteredError } from '../plugins/errors'
import { ownOptions } from '../core/own-options'
import { setTimerRef } from '../platform/runtime'
import type { MessageType } from '../core/types'
import { handOver } from './hand-over'
import { loadLineIdHasher } from './message-id'
import { rateDelayMs, resolveImportOptions, type ResolvedImportOptions } from './pace'
import type { ImportClient, SourceItem } from '../core/import-source'
import { callListener, Tally } from './tally'
import type { IdPolicy, RecordFilter } from './to-message'
import type { ImportOptions, ImportProgress, ImportSummary } from './types'
import type { Watermark } from './watermark'

export type { ImportClient, SourceItem } from '../core/import-source'

// Wait this long before handing a message again that a shared, full client refused.
const QUEUE_FULL_RETRY_MS = 10

/** Options of the engine beyond the library's: what `eventrail import` adds. */
export interface EngineOptions extends ImportOptions {
  /** The watermark to keep, for a caller that reads it as it moves (the CLI's content trail). */
  readonly watermark?: Watermark
  /** Bytes of the input of the items that have their outcome, added as they get it (the CLI's percentage). */
  readonly done?: { bytes: number }
  /** Records of `eventrail dev --out`: which to import (`--verdict`). */
  readonly records?: RecordFilter
}

/**
 * Runs an import: reads `items` in order, hands each message to the client's own method (which
 * validates it exactly as for any call), and pauses reading while `maxPending` messages or
 * `maxPendingBytes` bytes have no outcome yet, so memory stays flat and the client's queue is
 * never full. Items come in batches (a reader yields the lines of a chunk at once: one await a
 * chunk, not a line). Resolves with the summary once every message handed over has its outcome.
 */
export async function runImport(
  items: AsyncIterable<readonly SourceItem[]>,
  client: ImportClient,
  input: EngineOptions,
): Promise<ImportSummary> {
  // Own fields only, each read once (the library's options, the command's): nothing of a polluted
  // Object.prototype is taken for an option.
  const options = (typeof input === 'object' && input !== null ? ownOptions(input, 'options', 'importMessages') : input) as EngineOptions
  const resolved = resolveImportOptions(options)
  const ids: IdPolicy = { hashLine: await loadLineIdHasher(), custom: options.messageId, records: options.records }
  return new ImportRun(client, resolved, ids, options).run(items)
}

class ImportRun {
  readonly #client: ImportClient
  readonly #options: ResolvedImportOptions
  readonly #ids: IdPolicy
  readonly #hooks: EngineOptions
  readonly #tally: Tally
  readonly #done: { bytes: number }
  #handed = 0
  #stopped = false
  #aborted = false
  #stoppedAt: number | undefined
  #flushing = false
  #wake: (() => void) | undefined
  #endSleep: (() => void) | undefined

  constructor(client: ImportClient, options: ResolvedImportOptions, ids: IdPolicy, hooks: EngineOptions) {
    this.#client = client
    this.#options = options
    this.#ids = ids
    this.#hooks = hooks
    this.#tally = new Tally(options.firstPosition - 1, hooks.watermark)
    this.#done = hooks.done ?? { bytes: 0 }
  }

  async run(items: AsyncIterable<readonly SourceItem[]>): Promise<ImportSummary> {
    const signal = this.#hooks.signal
    const onAbort = (): void => {
      this.#aborted = true
      this.#stop()
    }
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    const timer = setInterval(() => this.#progress(), this.#options.progressIntervalMs)
    setTimerRef(timer, false)
    try {
      // A source that throws (a read error) stops the reading; what was handed over still gets its
      // outcome, and the last progress its watermark, before the error is passed on.
      const readError = await this.#readAll(items).then(
        () => undefined,
        (err: unknown) => ({ err }),
      )
      const abandoned = await this.#drain()
      if (readError !== undefined) {
        this.#progress()
        throw readError.err
      }
      const summary: ImportSummary = {
        ...this.snapshot(),
        aborted: this.#aborted,
        abandoned,
        ...(this.#stoppedAt ? { stoppedAt: this.#stoppedAt } : {}),
      }
      this.#progress()
      return summary
    } finally {
      clearInterval(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  /** The counts so far. */
  snapshot(): ImportProgress {
    return this.#tally.progress()
  }

  async #readAll(batches: AsyncIterable<readonly SourceItem[]>): Promise<void> {
    if (this.#stopped) return
    const { maxPending, maxPendingBytes, rate } = this.#options
    // Leaving the loop ends the source (`return()`): a file stream is closed.
    outer: for await (const batch of batches) {
      for (const item of batch) {
        if (item.source === null) {
          // A blank line: nothing to send, its outcome is known at once.
          this.#tally.read += 1
          this.#tally.skipped += 1
          this.#done.bytes += item.bytes
          this.#tally.watermark.pass(item.position)
          continue
        }
        while (
          !this.#stopped &&
          this.#tally.pending > 0 &&
          (this.#tally.pending >= maxPending || this.#tally.pendingBytes + item.bytes > maxPendingBytes)
        ) {
          await this.#nextOutcome()
        }
        if (this.#stopped) break outer
        if (rate !== undefined) {
          const delay = rateDelayMs(this.#tally.startMs, this.#handed, rate, Date.now())
          if (delay > 0) await this.#sleep(delay)
          if (this.#stopped) break outer
        }
        // Counted once taken: an item left when the import stops is neither read nor given an outcome.
        this.#tally.read += 1
        this.#tally.bytes += item.bytes
        this.#handed += 1
        this.#tally.pending += 1
        this.#tally.pendingBytes += item.bytes
        this.#tally.watermark.open(item.position)
        this.#send(item)
      }
      if (this.#stopped) break
    }
  }

  #send(item: SourceItem): void {
    handOver(this.#client, item, this.#ids, this.#settle)
  }

  // One function for every item: the callback of each message is its only closure.
  readonly #settle = (item: SourceItem, type: MessageType | undefined, err: Error | undefined, isSkipped?: boolean): void =>
    this.#outcome(item, type, err, isSkipped === true)

  #outcome(item: SourceItem, type: MessageType | undefined, err: Error | undefined, isSkipped: boolean): void {
    // A plugin's deliberate drop is an outcome, not a failure: the item is skipped on purpose.
    if (isSkipped || err instanceof FilteredError) {
      this.#tally.skipped += 1
      this.#tally.watermark.close(item.position)
    } else if (err === undefined) {
      this.#tally.sent += 1
      this.#tally.watermark.close(item.position)
    } else if (err instanceof QueueFullError) {
      // A client shared with other work is full: that is backpressure, not a failure. The message
      // stays pending (it keeps its place under the bounds) and is handed over again shortly.
      this.#kickFlush()
      setTimeout(() => this.#send(item), QUEUE_FULL_RETRY_MS)
      return
    } else {
      // Refused: the client (or the tracking plan, in any mode) found the message invalid and
      // would never send it; anything else is a failure to deliver.
      const isRefused = err instanceof ValidationError
      const strict = this.#options.strict
      if (isRefused) this.#tally.refused += 1
      else this.#tally.failed += 1
      this.#tally.watermark.close(item.position, !isRefused || strict)
      callListener(this.#hooks, 'onIssue', {
        position: item.position,
        outcome: isRefused ? 'refused' : 'failed',
        ...(type ? { type } : {}),
        reason: err.message,
        error: err.name,
      })
      if (isRefused && strict && this.#stoppedAt === undefined) {
        this.#stoppedAt = item.position
        this.#stop()
      }
    }
    this.#tally.pending -= 1
    this.#tally.pendingBytes -= item.bytes
    this.#done.bytes += item.span ?? item.bytes
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #nextOutcome(): Promise<void> {
    // At the bound, ask the client to send what it holds: whatever its flushAt and flushInterval,
    // the import never waits on a timer.
    this.#kickFlush()
    return new Promise((resolve) => {
      const previous = this.#wake
      this.#wake = () => {
        previous?.()
        resolve()
      }
    })
  }

  #kickFlush(): void {
    if (this.#flushing) return
    this.#flushing = true
    this.#client.flush().then(
      () => (this.#flushing = false),
      () => (this.#flushing = false), // every message's own callback has the error
    )
  }

  async #drain(): Promise<number> {
    // Bounded only once stopped: at the end of the source, the client's own retry limits bound it.
    const timeout = this.#stopped ? this.#options.drainTimeoutMs : undefined
    let isExpired = false
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(() => {
            isExpired = true
            this.#stop()
          }, timeout)
    try {
      while (this.#tally.pending > 0 && !isExpired) await this.#nextOutcome()
    } finally {
      clearTimeout(timer)
    }
    return this.#tally.pending
  }

  #stop(): void {
    this.#stopped = true
    this.#endSleep?.()
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  // Waits `ms` (the rate's spacing), however long, or until the import stops.
  #sleep(ms: number): Promise<void> {
    const until = Date.now() + ms
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const end = (): void => {
        clearTimeout(timer)
        this.#endSleep = undefined
        resolve()
      }
      const arm = (): void => {
        const left = until - Date.now()
        if (left <= 0) end()
        else timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS))
      }
      this.#endSleep = end
      arm()
    })
  }

  #progress(): void {
    if (this.#hooks.onProgress !== undefined) callListener(this.#hooks, 'onProgress', this.snapshot())
  }
}
