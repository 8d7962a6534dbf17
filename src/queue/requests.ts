import { DeliveryError } from '../errors'
import { bodyBytes, splitInHalves } from './batch'
import type { QueuedEntry } from './queue'

/** One request: its entries (in order), the first order number, its path and body size. */
export interface Request {
  readonly entries: QueuedEntry[]
  readonly minSeq: number
  readonly path: string
  readonly bytes: number
  /** A batch that left before its lane held a full one. */
  readonly isPartial: boolean
  /** Aborted when the client gives up on it (the closeAndFlush timeout); one per request. */
  readonly stop: AbortController
  /** When it started, ms: its duration goes to `flush` and `drop` listeners. */
  readonly startedMs: number
}

/** The request for `entries`: an alias alone to `/v1/alias`, anything else to `/v1/batch`. */
export function createRequest(entries: QueuedEntry[], isPartial: boolean): Request {
  const path = entries[0].isAlias ? '/v1/alias' : '/v1/batch'
  return { entries, minSeq: entries[0].seq, path, bytes: bodyBytes(entries), isPartial, stop: new AbortController(), startedMs: Date.now() }
}

/**
 * The requests started and not yet ended, and the halves of batches the service refused as too
 * large (413), which go out before anything queued later.
 */
export class OpenRequests {
  readonly #started = new Set<Request>()
  readonly #resends: QueuedEntry[][] = []

  /** Whether halves of a refused batch wait to be sent. */
  get hasResends(): boolean {
    return this.#resends.length > 0
  }

  /** Each message of the halves waiting to be sent, left where it is. */
  *waitingResends(): IterableIterator<QueuedEntry> {
    for (const entries of this.#resends) yield* entries
  }

  add(request: Request): void {
    this.#started.add(request)
  }

  /** Ends a request; false when it had already ended (the closeAndFlush timeout ended it). */
  end(request: Request): boolean {
    return this.#started.delete(request)
  }

  /**
   * After a 413: a batch of several messages is split in halves to send on their own (true); one
   * message cannot be split (false). Halves always shrink, so this ends.
   */
  splitRefused(request: Request): boolean {
    if (request.entries.length < 2) return false
    this.#resends.push(...splitInHalves(request.entries))
    return true
  }

  /** The entries of a request to send again (with a spool, when the service did not take them), in order of age. */
  requeue(entries: QueuedEntry[]): void {
    this.#resends.push(entries)
    this.#resends.sort((a, b) => a[0].seq - b[0].seq)
  }

  /** Takes every half waiting to be sent. */
  takeResends(): QueuedEntry[][] {
    return this.#resends.splice(0)
  }

  /** The next half to send. */
  takeResend(): QueuedEntry[] | undefined {
    return this.#resends.shift()
  }

  /** The lowest order number among the messages of these requests and halves, or `below`. */
  firstSeq(below: number): number {
    let first = below
    for (const request of this.#started) if (request.minSeq < first) first = request.minSeq
    for (const entries of this.#resends) if (entries[0].seq < first) first = entries[0].seq
    return first
  }

  /** Ends every request (aborting it with `reason`) and takes every half: their entries, request by request. */
  takeAll(reason: Error): QueuedEntry[][] {
    const all = [...this.#started].map((request) => request.entries)
    for (const request of this.#started) request.stop.abort(reason)
    this.#started.clear()
    return [...all, ...this.#resends.splice(0)]
  }
}

/** The error of a single message the service still refused as too large, naming its size. */
export function refusedAlone(request: Request, cause: DeliveryError): DeliveryError {
  const what = request.path === '/v1/alias' ? 'alias' : 'message'
  return new DeliveryError(
    `${request.path}: the service refused the ${what} as too large (413) in a request of its own: ${request.bytes} bytes (${request.entries[0].bytes} bytes of JSON)`,
    413,
    cause.attempts,
    { cause },
  )
}
