import type { MessageType } from '../types'
import { handOver } from './hand-over'
import { loadLineIdHasher } from './message-id'
import { rateDelayMs, resolveImportOptions, type ResolvedImportOptions } from './pace'
import type { ImportClient, SourceItem } from './source'
import { callListener, Tally } from './tally'
import type { IdPolicy } from './to-message'
import type { ImportOptions, ImportProgress, ImportSummary } from './types'

export type { ImportClient, SourceItem } from './source'

// A refused message is one the client validated and would never send; anything else is a failure.
const REFUSALS = new Set(['ValidationError', 'MessageTooLargeError'])
// Wait this long before handing a message again that a shared, full client refused.
const QUEUE_FULL_RETRY_MS = 10

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
  options: ImportOptions,
): Promise<ImportSummary> {
  const resolved = resolveImportOptions(options)
  const ids: IdPolicy = { hashLine: await loadLineIdHasher(), custom: options.messageId }
  return new ImportRun(client, resolved, ids, options).run(items)
}

class ImportRun {
  readonly #client: ImportClient
  readonly #options: ResolvedImportOptions
  readonly #ids: IdPolicy
  readonly #hooks: ImportOptions
  readonly #tally: Tally
  #handed = 0
  #stopped = false
  #aborted = false
  #stoppedAt: number | undefined
  #flushing = false
  #wake: (() => void) | undefined

  constructor(client: ImportClient, options: ResolvedImportOptions, ids: IdPolicy, hooks: ImportOptions) {
    this.#client = client
    this.#options = options
    this.#ids = ids
    this.#hooks = hooks
    this.#tally = new Tally(options.firstPosition - 1)
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
    timer.unref()
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
        this.#tally.read += 1
        if (item.source === null) {
          this.#tally.watermark.pass(item.position)
          continue
        }
        this.#tally.bytes += item.bytes
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
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
        }
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
  readonly #settle = (item: SourceItem, type: MessageType | undefined, err: Error | undefined): void => this.#outcome(item, type, err)

  #outcome(item: SourceItem, type: MessageType | undefined, err: Error | undefined): void {
    if (err === undefined) {
      this.#tally.sent += 1
      this.#tally.watermark.close(item.position)
    } else if (err.name === 'QueueFullError') {
      // A client shared with other work is full: that is backpressure, not a failure. The message
      // stays pending (it keeps its place under the bounds) and is handed over again shortly.
      this.#kickFlush()
      setTimeout(() => this.#send(item), QUEUE_FULL_RETRY_MS)
      return
    } else {
      const isRefused = REFUSALS.has(err.name)
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
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #progress(): void {
    if (this.#hooks.onProgress !== undefined) callListener(this.#hooks, 'onProgress', this.snapshot())
  }
}
