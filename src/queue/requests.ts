import { NO_TROUBLE, type BatchTrouble } from '../delivery/isolation'
import { DeliveryError } from '../core/errors'
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
  /** When `maxRetryTime` started to run for it, ms: its oldest message's call, or when it was put back to wait for the service (a spool). */
  readonly sinceMs: number
  /** What it knows of its batch's failures (updated as its attempts fail): a half of a split batch starts from its parent's. */
  trouble: BatchTrouble
}

/** Messages to send again before anything queued later (a half of a split batch, or a request the service did not take), and what their batch knows of its failures. */
export interface Resend {
  readonly entries: QueuedEntry[]
  readonly trouble: BatchTrouble
  /** When `maxRetryTime` started to run for them, ms. */
  readonly sinceMs: number
}

/** The request for `entries` (sent again: `resend`): an alias alone to `/v1/alias`, anything else to `/v1/batch`. */
export function createRequest(entries: QueuedEntry[], isPartial: boolean, resend?: Resend): Request {
  const path = entries[0].isAlias ? '/v1/alias' : '/v1/batch'
  const startedMs = Date.now()
  const trouble = resend?.trouble ?? NO_TROUBLE
  const sinceMs = resend?.sinceMs ?? entries[0].at
  const stop = new AbortController()
  return { entries, minSeq: entries[0].seq, path, bytes: bodyBytes(entries), isPartial, stop, startedMs, sinceMs, trouble }
}

/**
 * The requests started and not yet ended, and the halves of batches the service refused as too
 * large (413) or kept failing while it accepted others, which go out before anything queued later.
 */
export class OpenRequests {
  // Both made when first needed and let go when empty again: an idle instance of a multi-tenant
  // process holds neither (a Set keeps its table of 120 bytes after its last delete).
  #started: Set<Request> | undefined
  #resends: Resend[] | undefined

  /** Whether halves of a refused batch wait to be sent. */
  get hasResends(): boolean {
    return this.#resends !== undefined && this.#resends.length > 0
  }

  /** Each message of the halves waiting to be sent, left where it is. */
  *waitingResends(): IterableIterator<QueuedEntry> {
    for (const resend of this.#resends ?? []) yield* resend.entries
  }

  add(request: Request): void {
    ;(this.#started ??= new Set()).add(request)
  }

  /** Ends a request; false when it had already ended (the closeAndFlush timeout ended it). */
  end(request: Request): boolean {
    if (this.#started?.delete(request) !== true) return false
    if (this.#started.size === 0) this.#started = undefined
    return true
  }

  /**
   * After a 413: a batch of several messages is split in halves to send on their own (true); one
   * message cannot be split (false). Halves always shrink, so this ends.
   */
  splitRefused(request: Request): boolean {
    if (request.entries.length < 2) return false
    this.splitFailing(request, request.trouble)
    return true
  }

  /** A batch of several messages that kept failing while others got through: its halves go on their own, starting from `trouble`. */
  splitFailing(request: Request, trouble: BatchTrouble): void {
    const resends = (this.#resends ??= [])
    for (const entries of splitInHalves(request.entries)) resends.push({ entries, trouble, sinceMs: request.sinceMs })
  }

  /**
   * A request to send again (with a spool, when the service did not take it), in order of age;
   * `atBack`: after every other one (a probe that failed: the next probe carries something else, so
   * that one message the service refuses cannot keep it from closing the breaker). It keeps what
   * it knows of its failures, and its retries start over: a new `maxRetryTime` (with backoff),
   * not one attempt at a time with no wait between.
   */
  requeue(request: Request, atBack = false): void {
    const resends = (this.#resends ??= [])
    resends.push({ entries: request.entries, trouble: request.trouble, sinceMs: Date.now() })
    if (!atBack) resends.sort((a, b) => a.entries[0].seq - b.entries[0].seq)
  }

  /** Takes every half waiting to be sent. */
  takeResends(): QueuedEntry[][] {
    const resends = this.#resends ?? []
    this.#resends = undefined
    return resends.map((resend) => resend.entries)
  }

  /** The next half to send. */
  takeResend(): Resend | undefined {
    const resend = this.#resends?.shift()
    if (this.#resends?.length === 0) this.#resends = undefined
    return resend
  }

  /** The lowest order number among the messages of these requests and halves, or `below`. */
  firstSeq(below: number): number {
    let first = below
    if (this.#started !== undefined) for (const request of this.#started) if (request.minSeq < first) first = request.minSeq
    if (this.#resends !== undefined) for (const { entries } of this.#resends) if (entries[0].seq < first) first = entries[0].seq
    return first
  }

  /** Ends every request (aborting it with `reason`) and takes every half: their entries, request by request. */
  takeAll(reason: Error): QueuedEntry[][] {
    const started = [...(this.#started ?? [])]
    this.#started = undefined
    for (const request of started) request.stop.abort(reason)
    return [...started.map((request) => request.entries), ...this.takeResends()]
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
