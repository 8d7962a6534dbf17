import { ClosedError, QueueFullError, ServiceUnavailableError, TimeoutError } from '../errors'
import { MAX_BATCH_BYTES } from '../limits'
import type { RetryInfo } from '../delivery/deliver'
import { settle, settleAlone } from '../outcome'
import type { ResolvedOptions } from '../options'
import type { Serialized } from '../message/serialize'
import type { Callback } from '../types'
import { holdsWork, releasesWork, type Drainable } from './exit-hook'
import { FlushTriggers } from './flush-triggers'
import { FlushWaiters, type FlushOutcome } from './flush-waiters'
import { HeldTimers } from './held-timers'
import { markBusy, markIdle, type IdleReleasable } from './idle-release'
import { LaneExpiry } from './lane-expiry'
import { Lanes } from './lanes'
import type { BreakerStatus } from './outage'
import type { QueuedEntry } from './queue'
import { OpenRequests } from './requests'
import { RequestPump, type PumpOwner } from './request-pump'
import { SendMachinery } from './send-machinery'
import type { SpoolFlow, SpoolHost, SpoolStats } from '../spool/index'
import { startSpool } from './spool-start'

export type { FlushOutcome } from './flush-waiters'

/** What the scheduler tells its owner. */
export interface SchedulerHooks {
  /**
   * A request ended: delivered (`error` undefined) or failed for good; `replayed` of its messages
   * came from a spool a gone process left. Called before callbacks run.
   */
  requestDone(
    path: string,
    entries: readonly QueuedEntry[],
    bytes: number,
    error: Error | undefined,
    durationMs?: number,
    replayed?: number,
  ): void
  /** A request is about to be retried. */
  retry(info: RetryInfo): void
  /** Something the library could not hand to anyone else (a callback threw). */
  report(err: unknown): void
  /** The outage breaker opened (with the error messages now get) or closed (after `downMs`). */
  breaker(
    change: { readonly state: 'open'; readonly error: ServiceUnavailableError } | { readonly state: 'closed'; readonly downMs: number },
  ): void
  /** The spool took over messages a gone process left: `count` to send, `torn` records skipped. */
  replay?(count: number, torn: number): void
}

/**
 * Coordinates the flow from the lanes to requests: it takes messages in, asks the flush rules what
 * is due, starts requests while an in-flight slot and the request rate allow, gives every message
 * its outcome, and wakes the `flush()` waiters. Shutdown and the drain before exit are here too.
 */
export class FlushScheduler implements Drainable, IdleReleasable {
  readonly #options: ResolvedOptions
  readonly #hooks: SchedulerHooks
  readonly #lanes = new Lanes()
  readonly #waiters = new FlushWaiters()
  readonly #timers = new HeldTimers()
  readonly #triggers: FlushTriggers
  readonly #requests = new OpenRequests()
  #seq = 0
  #pendingCount = 0
  #pendingBytes = 0
  #draining = false
  #closed = false
  #gaveUp = false
  #keepAlivePending = false
  readonly #send: SendMachinery
  #expiry: LaneExpiry | undefined
  readonly #spool: SpoolFlow | undefined
  readonly #pump: RequestPump

  constructor(options: ResolvedOptions, hooks: SchedulerHooks) {
    this.#options = options
    this.#hooks = hooks
    this.#triggers = new FlushTriggers(
      options.flushAt,
      options.flushIntervalMs,
      () => this.#pump.pump(),
      (err) => hooks.report(err),
    )
    this.#send = new SendMachinery(options, this.#timers, this.#lanes, {
      hasWorkForSlot: () => this.#pump.hasWork,
      pump: () => this.#pump.pump(),
      retry: (info) => hooks.retry(info),
      opened: (error) => {
        hooks.breaker({ state: 'open', error })
        // With a spool, messages wait on disk for the service: the flushes that wait settle now.
        if (this.#spool === undefined) this.#failWaiting(error)
        else {
          this.#releaseWaiters()
          // What waits in memory is on disk too: a caller of deliver.* is told so now (kept: true).
          this.#spool.keepWaiting([...this.#requests.waitingResends(), ...this.#lanes.waiting()], error)
        }
      },
      closed: (downMs) => {
        hooks.breaker({ state: 'closed', downMs })
        this.#spool?.pageIn()
        this.#pump.pump()
      },
    })
    this.#pump = new RequestPump(options, this.#lanes, this.#requests, this.#send, this.#triggers, this.#pumpOwner())
    if (options.spool !== undefined) this.#spool = startSpool(options.spool, options.writeKey, options.host, this.#spoolHost(), hooks)
  }

  // What the request pump and the spool (src/spool/flow.ts) see of the scheduler and may do.
  #pumpOwner(): PumpOwner {
    return {
      gaveUp: () => this.#gaveUp,
      isAwaited: () => this.#waiters.size > 0 || this.#draining,
      spool: () => this.#spool,
      complete: (entries, path, bytes, error, durationMs) => this.#complete(entries, path, bytes, error, durationMs),
      failWaiting: (error) => this.#failWaiting(error),
      watchExpiry: () => this.#laneExpiry.watch(),
    }
  }

  #spoolHost(): SpoolHost {
    return {
      maxQueueSize: this.#options.maxQueueSize,
      maxQueueBytes: this.#options.maxQueueBytes,
      pending: () => ({ count: this.#pendingCount, bytes: this.#pendingBytes }),
      seq: () => this.#seq,
      gaveUp: () => this.#gaveUp,
      isDown: () => this.#send.outage?.isOpen === true,
      push: (entry) => this.#push(entry),
      pushRead: (entries) => this.#pushRead(entries),
      flushQueued: (wantBatch, through) => this.#flushQueued(wantBatch, through),
      endQueued: (error) => this.#endQueued(error),
      endParked: (callbacks, error) => {
        const entries = callbacks.map((callback): QueuedEntry => ({
          seq: 0,
          at: 0,
          json: '',
          bytes: 0,
          head: undefined,
          isAlias: false,
          callback,
        }))
        this.#hooks.requestDone('', entries, 0, error)
        // Never in a request: no batch to hand them, as for a message that was never queued.
        for (const callback of callbacks) settleAlone(callback, error, (err) => this.#hooks.report(err))
      },
    }
  }

  /** The spool's figures; undefined without one. */
  get spool(): SpoolStats | undefined {
    return this.#spool?.stats
  }

  /** Messages queued and not yet in a request. */
  get queued(): number {
    return this.#lanes.length
  }

  /** Whether messages are sent at all (`enable`); with `false`, nothing is lost at exit. */
  get sends(): boolean {
    return this.#options.enable
  }

  /** Messages that an exit now would lose: with a spool, only those the disk refused. */
  get atRisk(): number {
    return this.#spool === undefined ? this.queued + this.inFlight : this.#spool.unsaved
  }

  /** Messages in requests being sent or waiting to be retried. */
  get inFlight(): number {
    return this.#pendingCount - this.#lanes.length
  }

  /** HTTP attempts in flight now, and how many may be: the adaptive limit. */
  get attempts(): { readonly active: number; readonly limit: number } {
    return this.#send.attempts
  }

  /** The outage breaker: closed, open, or open with its probe in flight. */
  get breaker(): BreakerStatus {
    return this.#send.outage?.status ?? 'closed'
  }

  /** Whether `close()` has been called. */
  get isClosed(): boolean {
    return this.#closed
  }

  /** Takes a serialized message, or returns why it cannot (closed, queue full). */
  enqueue(serialized: Serialized, isAlias: boolean, callback: Callback | undefined): Error | undefined {
    if (this.#closed) return new ClosedError('the client is closed (closeAndFlush was called): the message was not queued')
    const { json, bytes, head } = serialized
    const isFull = this.#pendingCount >= this.#options.maxQueueSize || this.#pendingBytes + bytes > this.#options.maxQueueBytes
    if (this.#spool !== undefined) return this.#spool.enqueue(serialized, isAlias, callback, isFull)
    if (isFull) return this.#queueFull()
    this.#push({ seq: this.#seq + 1, at: Date.now(), json, bytes, head, isAlias, callback })
    return undefined
  }

  #queueFull(): QueueFullError {
    const { maxQueueSize, maxQueueBytes } = this.#options
    return new QueueFullError(
      `the queue is full (${this.#pendingCount} messages, ${this.#pendingBytes} bytes; maxQueueSize ${maxQueueSize}, maxQueueBytes ${maxQueueBytes}): the message was not queued`,
    )
  }

  #push(entry: QueuedEntry): void {
    this.#seq = entry.seq
    this.#lanes.push(entry)
    this.#pendingBytes += entry.bytes
    if (++this.#pendingCount === 1) {
      holdsWork(this)
      markBusy(this)
    }
    this.#triggers.afterEnqueue(this.#seq, this.#lanes.length, !entry.isAlias && this.#lanes.hasFullBatch(MAX_BATCH_BYTES))
    if (this.#options.waitUntil !== undefined) this.#keepAlive(this.#options.waitUntil)
  }

  // Messages read back from the spool: queued, and due at once.
  #pushRead(entries: QueuedEntry[]): void {
    for (const entry of entries) {
      this.#seq = entry.seq
      this.#lanes.push(entry)
      this.#pendingBytes += entry.bytes
    }
    if (this.#pendingCount === 0) {
      holdsWork(this)
      markBusy(this)
    }
    this.#pendingCount += entries.length
    this.#triggers.flushThrough(this.#seq)
  }

  // With `waitUntil`: after the caller's synchronous run of calls, flush what it queued and hand
  // the platform the promise of that flush, which settles when every one of them has an outcome.
  #keepAlive(waitUntil: (promise: Promise<unknown>) => void): void {
    if (this.#keepAlivePending) return
    this.#keepAlivePending = true
    void Promise.resolve().then(() => {
      this.#keepAlivePending = false
      try {
        waitUntil(this.flush(false).then(() => undefined))
      } catch (err) {
        this.#hooks.report(err)
      }
    })
  }

  /** Sends everything queued; resolves when every message enqueued before the call has an outcome. */
  flush(wantBatch: boolean): Promise<FlushOutcome> {
    return this.#spool === undefined ? this.#flushQueued(wantBatch) : this.#spool.flush(wantBatch)
  }

  // Waits for the messages queued up to `through` (every one, by default).
  #flushQueued(wantBatch: boolean, through = this.#seq): Promise<FlushOutcome> {
    if (this.#pendingCount === 0 || this.#firstPendingSeq() > through)
      return Promise.resolve({ error: undefined, batch: wantBatch ? [] : undefined })
    return new Promise((resolve) => {
      this.#waiters.add(through, wantBatch, resolve)
      this.#timers.hold(1)
      this.#triggers.flushThrough(through)
    })
  }

  // The service is down and the messages are safe on disk: every flush that waits settles now.
  #releaseWaiters(): void {
    for (let n = this.#waiters.releaseAll(); n > 0; n--) this.#timers.hold(-1)
    if (this.#draining) {
      this.#draining = false
      this.#timers.hold(-1)
    }
  }

  /** Sends everything queued so far right after the caller's synchronous run of calls (someone awaits it). */
  expedite(): void {
    if (this.#pendingCount > 0) this.#triggers.flushSoon(this.#seq)
  }

  /** Stops intake and drains; past `timeoutMs`, what is left fails with a TimeoutError. */
  close(timeoutMs: number | undefined): Promise<FlushOutcome> {
    this.#closed = true
    const done = this.flush(false)
    if (timeoutMs !== undefined && this.#pendingCount > 0) {
      const timer = this.#timers.start(() => this.#giveUp(timeoutMs), timeoutMs)
      void done.then(() => this.#timers.stop(timer))
    }
    const spool = this.#spool
    if (spool === undefined) return done
    return done.then((outcome) => {
      spool.close(outcome)
      return outcome
    })
  }

  // Every queued message ends with `error`, and nothing more is taken into a request.
  #endQueued(error: Error): void {
    this.#gaveUp = true
    for (const entries of [...this.#requests.takeResends(), this.#lanes.takeAll()]) {
      if (entries.length > 0) this.#complete(entries, entries[0].isAlias ? '/v1/alias' : '/v1/batch', 0, error)
    }
  }

  /** Called when the event loop runs dry: send what is queued and hold the process until it has an outcome. */
  drainBeforeExit(): void {
    // With a spool, messages wait on disk while the service is down: the process may end.
    if (this.#pendingCount === 0 || (this.#spool !== undefined && this.#send.outage?.isOpen === true)) return
    if (!this.#draining) {
      this.#draining = true
      this.#timers.hold(1)
    }
    this.#triggers.flushThrough(this.#seq)
  }

  // The breaker opened, or its probe failed: everything that waits fails at once, together.
  #failWaiting(error: ServiceUnavailableError): void {
    for (const entries of [...this.#requests.takeResends(), this.#lanes.takeAll()]) {
      if (entries.length > 0) this.#complete(entries, entries[0].isAlias ? '/v1/alias' : '/v1/batch', 0, error)
    }
  }

  // Every entry ends here, once: counts, hooks, the flush waiters, callbacks. Entries are in order.
  #complete(entries: readonly QueuedEntry[], path: string, bytes: number, error: Error | undefined, durationMs?: number): void {
    this.#pendingCount -= entries.length
    for (const entry of entries) this.#pendingBytes -= entry.bytes
    this.#hooks.requestDone(path, entries, bytes, error, durationMs, this.#spool?.done(entries, error))
    this.#waiters.record(entries, entries[0].seq, error)
    settle(entries, error, (err) => this.#hooks.report(err))
    for (let n = this.#waiters.resolveBelow(this.#firstPendingSeq()); n > 0; n--) this.#timers.hold(-1)
    if (this.#pendingCount === 0) {
      releasesWork(this)
      if (this.#options.enable) markIdle(this)
      if (this.#draining) {
        this.#draining = false
        this.#timers.hold(-1)
      }
    }
  }

  /**
   * Idle for a while (a multi-tenant process keeps thousands of instances, most of them quiet):
   * the slots, limits, rate log, delivery context and breaker go, to be made again on the next
   * send. Not while the breaker is open: a service that is down stays known to be down.
   */
  releaseIdle(): void {
    if (this.#pendingCount > 0 || this.#send.outage?.isOpen === true) return
    this.#send.release()
    this.#expiry?.stop()
    this.#expiry = undefined
  }

  #firstPendingSeq(): number {
    return this.#requests.firstSeq(this.#lanes.firstSeq)
  }

  #giveUp(timeoutMs: number): void {
    const reason = new TimeoutError(`closeAndFlush: messages still without an outcome after ${timeoutMs} ms`)
    this.#gaveUp = true
    // Everything ends now, even a request whose fetch ignores the abort.
    for (const entries of [...this.#requests.takeAll(reason), this.#lanes.takeAll()]) {
      if (entries.length > 0) this.#complete(entries, '', 0, reason)
    }
  }

  get #laneExpiry(): LaneExpiry {
    const fail = (entries: QueuedEntry[], error: Error): void => this.#complete(entries, '', 0, error)
    return (this.#expiry ??= new LaneExpiry(this.#options.maxRetryTimeMs, this.#timers, this.#lanes, () => this.#triggers.dueSeq, fail))
  }
}
