import { DeliveryError, ServiceUnavailableError } from '../core/errors'
import { MAX_BATCH_BYTES } from '../core/limits'
import { deliverRequest } from '../delivery/deliver'
import { SplitBatch, type BatchTrouble } from '../delivery/isolation'
import type { ResolvedOptions } from '../config/options'
import type { Durability } from './durability'
import { buildBatchBody, buildBatchBytes, buildSingleBody } from './batch'
import type { FlushTriggers } from './flush-triggers'
import type { Lanes, LaneName } from './lanes'
import type { OutageBreaker } from './outage'
import type { QueuedEntry } from './queue'
import { createRequest, refusedAlone, type OpenRequests, type Request, type Resend } from './requests'
import type { SendMachinery } from './send-machinery'

/** While the service is down: what a probe may carry, read back from the spool. */
const PROBE_PAGE_RECORDS = 500

/** What the pump asks of the scheduler that owns it. */
export interface PumpOwner {
  /** The closeAndFlush timeout passed (or a spool client closed while the service was down): nothing more starts. */
  gaveUp(): boolean
  /** Someone awaits a flush (or the process waits to exit): probes come sooner. */
  isAwaited(): boolean
  /** The spool, when the client has one. */
  spool(): Durability | undefined
  /** Entries have their outcome. */
  complete(entries: readonly QueuedEntry[], path: string, bytes: number, error: Error | undefined, durationMs?: number): void
  /** Everything that waits fails with `error` (the breaker is open and its probe failed). */
  failWaiting(error: ServiceUnavailableError): void
  /** With a spool, a probe failed and its messages wait on disk again: the flushes that wait settle. */
  probeFailed(): void
  /** Messages are due and wait for a slot: `maxRetryTime` runs on them. */
  watchExpiry(): void
}

/**
 * Takes requests from the lanes and sends them: while work is due, a slot is free and the request
 * rate allows; one probe at a time while the service is down. A request's outcome goes to the
 * owner, after a 413 split or (with a spool) a wait for the service.
 */
export class RequestPump {
  readonly #options: ResolvedOptions
  readonly #lanes: Lanes
  readonly #requests: OpenRequests
  readonly #send: SendMachinery
  readonly #triggers: FlushTriggers
  readonly #owner: PumpOwner
  #rateHeldThrough = 0
  /** A probe that carried messages sent again failed: the next one carries newer messages, when there are any. */
  #probeNewer = false
  /** A pass over the lanes is running; a wake-up meanwhile makes it go round once more. */
  #isRunning = false
  #isWokenAgain = false

  constructor(
    options: ResolvedOptions,
    lanes: Lanes,
    requests: OpenRequests,
    send: SendMachinery,
    triggers: FlushTriggers,
    owner: PumpOwner,
  ) {
    this.#options = options
    this.#lanes = lanes
    this.#requests = requests
    this.#send = send
    this.#triggers = triggers
    this.#owner = owner
  }

  /** Whether a request could start now but for a free slot. */
  get hasWork(): boolean {
    return this.#requests.hasResends || this.#nextLane() !== undefined
  }

  #nextLane(): LaneName | undefined {
    const mayTakeBatch = this.#options.enable ? (isFull: boolean) => this.#send.batchLimit.mayStart(isFull) : () => true
    return this.#lanes.next(this.#triggers.dueSeq, mayTakeBatch, MAX_BATCH_BYTES)
  }

  /**
   * The one way to make the pump look for work: whatever changed (a message queued, a flush, a slot
   * or the rate gate freed, a request ended, a probe due, the breaker closed) calls this. A wake-up
   * that comes while a pass is running (a callback that queues more, a request that ends at once)
   * does not start a second pass inside the first: it makes the running one go round again.
   */
  wake(): void {
    if (this.#isRunning) {
      this.#isWokenAgain = true
      return
    }
    this.#isRunning = true
    try {
      do {
        this.#isWokenAgain = false
        this.#pass()
      } while (this.#isWokenAgain)
    } finally {
      this.#isRunning = false
    }
  }

  // Starts requests while work is due, a slot is free and the request rate allows. A request takes
  // everything its lane holds up to 500 KB, not only what was due: when requests back up, batches grow.
  #pass(): void {
    const outage = this.#send.outage
    if (outage?.isOpen === true) return this.#pumpProbe(outage)
    const { enable, flushAt } = this.#options
    while (!this.#owner.gaveUp()) {
      const lane = this.#requests.hasResends ? 'resend' : this.#nextLane()
      if (lane === undefined) break
      if (enable) {
        const slots = this.#send.slots
        if (!slots.isFree) break
        if (!this.#send.rate.tryStart()) {
          this.#rateHeldThrough = this.#triggers.dueSeq
          break
        }
        slots.take()
      }
      if (lane === 'resend') {
        const resend = this.#requests.takeResend() as Resend
        this.#start(resend.entries, false, false, resend)
        continue
      }
      // flushAt 1 turns batching off (rule 4): one message a request, also while a burst waits for
      // a slot. Only messages that the request-rate limit held back go out together:
      // maxRequestsPerSecond is the service's recommendation, and a burst must not become a flood.
      const maxSeq = flushAt > 1 ? Infinity : this.#rateHeldThrough
      const isPartial = lane === 'batch' && !this.#lanes.hasFullBatch(MAX_BATCH_BYTES)
      this.#start(this.#lanes.take(lane, maxSeq, MAX_BATCH_BYTES), isPartial)
    }
    if (this.#lanes.length > 0) {
      if (this.#lanes.firstSeq > this.#triggers.dueSeq) this.#triggers.armInterval()
      else if (enable && this.#owner.spool() === undefined) this.#owner.watchExpiry()
    }
  }

  // While the service is down, one request at a time probes it, carrying what is due; what waits
  // meanwhile rides the next probe, which comes sooner while someone awaits a flush. After a probe
  // of messages sent again failed, the next carries newer ones when there are: a message the
  // service refuses must not be the only thing it is ever asked about (with a spool, it would be).
  #pumpProbe(outage: OutageBreaker): void {
    if (this.#owner.gaveUp()) return
    const mayTakeNewer = this.#probeNewer || !this.#requests.hasResends
    // With a spool, what waits on the disk only is read back, a batch at most, for the probe to carry.
    if (mayTakeNewer && this.#lanes.length === 0) this.#owner.spool()?.pageIn(PROBE_PAGE_RECORDS)
    const next = this.#lanes.next(this.#triggers.dueSeq, () => true, MAX_BATCH_BYTES)
    const lane = this.#requests.hasResends && (!this.#probeNewer || next === undefined) ? 'resend' : next
    if (lane === undefined || !outage.mayProbe(this.#owner.isAwaited())) return
    this.#send.slots.take()
    this.#probeNewer = false
    if (lane !== 'resend') return this.#start(this.#lanes.take(lane, Infinity, MAX_BATCH_BYTES), false, true)
    const resend = this.#requests.takeResend() as Resend
    this.#start(resend.entries, false, true, resend)
  }

  #start(entries: QueuedEntry[], isPartial: boolean, isProbe = false, resend?: Resend): void {
    const request = createRequest(entries, isPartial, resend)
    this.#requests.add(request)
    if (request.path === '/v1/batch') this.#send.batchLimit.start(isPartial)
    if (!this.#options.enable) {
      void Promise.resolve().then(() => this.#finish(request, undefined))
      return
    }
    const sentAt = new Date().toISOString()
    const context = this.#send.context
    const body = entries[0].isAlias
      ? buildSingleBody(entries[0], sentAt)
      : ((context.transport.acceptsBytes ? buildBatchBytes(entries, sentAt, request.bytes) : undefined) ?? buildBatchBody(entries, sentAt))
    const limit = this.#send.batchLimit
    const place = request.path === '/v1/batch' ? { lend: () => limit.lend(isPartial), reclaim: () => limit.reclaim(isPartial) } : undefined
    const troubled = (trouble: BatchTrouble): void => {
      request.trouble = trouble
    }
    const info = { sinceMs: request.sinceMs, isProbe, count: entries.length, trouble: request.trouble, troubled, place }
    deliverRequest(request.path, body, context, request.stop.signal, info).then(
      () => this.#finish(request, undefined, isProbe),
      (err: unknown) => this.#finish(request, err instanceof Error ? err : new Error(String(err)), isProbe),
    )
  }

  #finish(request: Request, error: Error | undefined, isProbe = false): void {
    // A request the closeAndFlush timeout already ended has had its outcome.
    if (!this.#requests.end(request)) return
    if (this.#options.enable) this.#send.slots.release()
    if (request.path === '/v1/batch') this.#send.batchLimit.end(request.isPartial)
    if (error instanceof SplitBatch) {
      // It kept failing while the service accepted others: its halves go on their own, down to one message.
      this.#requests.splitFailing(request, error.trouble)
      this.wake()
      return
    }
    if (error instanceof DeliveryError && error.status === 413) {
      // A proxy or a service with a smaller body limit: each half goes on its own, down to one message.
      if (this.#requests.splitRefused(request)) {
        this.wake()
        return
      }
      error = refusedAlone(request, error)
    }
    if (error !== undefined && this.#owner.spool()?.waitsAgain(error, request.entries) === true) {
      // With a spool, what the service did not take waits for it (on disk), first in line; after a
      // failed probe, last in line.
      this.#requests.requeue(request, isProbe)
      if (isProbe) this.#probeNewer = true
      // A probe that failed: the service is still down, and the flushes that wait settle ({ waiting }).
      if (isProbe) this.#owner.probeFailed()
      // Its retries ran out while the service kept answering (429s, 5xx): it is unavailable to us.
      if (error instanceof DeliveryError && !(error instanceof ServiceUnavailableError))
        this.#send.outage?.gaveUp(error.status, error.body, error)
      this.wake()
      return
    }
    this.#owner.complete(request.entries, request.path, request.bytes, error, Date.now() - request.startedMs)
    this.#owner.spool()?.pageIn()
    // A probe that failed: what waited for it fails now too, rather than at the next one.
    if (error instanceof ServiceUnavailableError && this.#send.outage?.isOpen === true) this.#owner.failWaiting(error)
    this.wake()
  }
}
