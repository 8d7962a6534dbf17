import { ClosedError, type QueueFullError, TimeoutError } from '../core/errors'
import { hasRoom, queueFull, roomBeside } from './bounds'
import { MAX_BATCH_BYTES } from '../core/limits'
import type { SchedulerHooks } from './scheduler-hooks'
import { settle, settleParked } from './settle'
import type { ResolvedOptions } from '../config/options'
import type { Serialized } from '../message/serialize'
import type { Callback } from '../core/types'
import { holdsWork, releasesWork, type Drainable } from '../platform/exit-hook'
import { FlushTriggers } from './flush-triggers'
import { FlushWaiters, type FlushOutcome } from './flush-waiters'
import { HeldTimers } from './held-timers'
import { markBusy, markIdle, type IdleReleasable } from '../platform/idle-release'
import { KeepAlive } from './keep-alive'
import { LaneExpiry } from './lane-expiry'
import { Lanes } from './lanes'
import type { BreakerStatus, HostStatus } from './outage'
import type { QueuedEntry } from './queue'
import { OpenRequests } from './requests'
import { RequestPump, type PumpOwner } from './request-pump'
import { SendMachinery } from './send-machinery'
import type { Durability, DurabilityFactory, DurabilityHost, SpoolStats } from './durability'

export type { FlushOutcome } from './flush-waiters'

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
  readonly #timers: HeldTimers
  readonly #triggers: FlushTriggers
  readonly #requests = new OpenRequests()
  #seq = 0
  #pendingCount = 0
  #pendingBytes = 0
  #draining = false
  #closed = false
  #gaveUp = false
  readonly #keepAlive: KeepAlive | undefined
  readonly #send: SendMachinery
  #expiry: LaneExpiry | undefined
  readonly #spool: Durability | undefined
  readonly #pump: RequestPump

  /** @param durability - makes the client's durability strategy (the disk spool); none keeps messages in memory only. */
  constructor(options: ResolvedOptions, hooks: SchedulerHooks, durability?: DurabilityFactory) {
    this.#options = options
    this.#hooks = hooks
    const report = (err: unknown): void => hooks.report(err)
    this.#timers = new HeldTimers(report)
    if (options.waitUntil !== undefined) this.#keepAlive = new KeepAlive(options.waitUntil, () => this.flush(false), report)
    this.#triggers = new FlushTriggers(options.flushAt, options.flushIntervalMs, () => this.#pump.wake(), report)
    this.#send = new SendMachinery(options, this.#timers, this.#lanes, durability !== undefined, {
      hasWorkForSlot: () => this.#pump.hasWork,
      wake: () => this.#pump.wake(),
      retry: (info) => hooks.retry(info),
      changed: (change) => hooks.breaker(change),
      opened: (error) => {
        // Without a spool what waits fails now; with one it waits on disk (flushes settle, deliver.* is told: kept).
        if (this.#spool === undefined) return this.#failWaiting(error)
        this.#releaseWaiters()
        this.#spool.keepWaiting([...this.#requests.waitingResends(), ...this.#lanes.waiting()], error)
      },
      closed: () => {
        this.#spool?.pageIn()
        this.#pump.wake()
      },
    })
    this.#pump = new RequestPump(options, this.#lanes, this.#requests, this.#send, this.#triggers, this.#pumpOwner())
    this.#spool = durability?.(this.#spoolHost())
  }

  // What the request pump sees of the scheduler and may do.
  #pumpOwner(): PumpOwner {
    return {
      gaveUp: () => this.#gaveUp,
      isAwaited: () => this.#waiters.size > 0 || this.#draining,
      spool: () => this.#spool,
      complete: (entries, path, bytes, error, durationMs) => this.#complete(entries, path, bytes, error, durationMs),
      failWaiting: (error) => this.#failWaiting(error),
      probeFailed: () => this.#releaseWaiters(),
      watchExpiry: () => this.#laneExpiry.watch(),
    }
  }

  #spoolHost(): DurabilityHost {
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
      // Closed while the service is down: every message in memory, in a request or not, ends
      // with `error` (its record stays for the next client), and nothing more starts.
      endQueued: (error) => this.#endAll(error),
      endParked: (callbacks, error) => settleParked(callbacks, error, this.#hooks),
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

  /** HTTP attempts in flight and the adaptive limit; the outage breaker; with `fallbackHosts`, each host's. */
  get sending(): { active: number; limit: number; breaker: BreakerStatus; hosts: HostStatus[] | undefined } {
    const { active, limit } = this.#send.attempts
    return { active, limit, breaker: this.#send.outage?.status ?? 'closed', hosts: this.#send.hosts }
  }

  /** Takes a serialized message, or says why not (closed, full: `held` messages of `heldBytes` in async plugins count too). */
  enqueue(serialized: Serialized, isAlias: boolean, callback: Callback | undefined, held = 0, heldBytes = 0): Error | undefined {
    if (this.#closed) return new ClosedError('the client is closed (closeAndFlush was called): the message was not queued')
    const { json, bytes, head } = serialized
    const isFull = !hasRoom(this.#options, this.#pendingCount + held, this.#pendingBytes + heldBytes + bytes)
    if (this.#spool !== undefined) return this.#spool.enqueue(serialized, isAlias, callback, isFull)
    if (isFull) return queueFull(this.#options, this.#pendingCount, this.#pendingBytes)
    this.#push({ seq: this.#seq + 1, at: Date.now(), json, bytes, head, isAlias, callback })
    return undefined
  }

  /** Whether a new message has room beside `held` messages in async plugins (see `bounds.ts`, `roomBeside`). */
  roomBeside(held: number, heldBytes: number, bytes: number | undefined): QueueFullError | undefined {
    return roomBeside(this.#options, this.#spool !== undefined, this.#pendingCount, this.#pendingBytes, held, heldBytes, bytes)
  }

  #push(entry: QueuedEntry): void {
    this.#add(entry)
    this.#triggers.afterEnqueue(this.#seq, this.#lanes.length, !entry.isAlias && this.#lanes.hasFullBatch(MAX_BATCH_BYTES))
    if (this.#keepAlive !== undefined && !this.#keepAlive.pending) this.#keepAlive.arm()
  }

  // Messages read back from the spool: queued, and due at once.
  #pushRead(entries: QueuedEntry[]): void {
    for (const entry of entries) this.#add(entry)
    this.#triggers.flushThrough(this.#seq)
  }

  // One entry joins its lane (no array per call: this is track()'s path); the first pending one
  // holds the process's exit and marks the client busy.
  #add(entry: QueuedEntry): void {
    this.#seq = entry.seq
    this.#lanes.push(entry)
    this.#pendingBytes += entry.bytes
    if (++this.#pendingCount === 1) {
      holdsWork(this)
      markBusy(this)
    }
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
    this.#stopDraining()
  }

  #stopDraining(): void {
    if (this.#draining) this.#timers.hold(-1)
    this.#draining = false
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

  // The breaker opened, or its probe failed: everything that waits fails at once, together; with
  // `inFlight`, the requests being sent too (aborted: the ends they come to later do not count).
  #failWaiting(error: Error, inFlight = false): void {
    for (const entries of [...(inFlight ? this.#requests.takeAll(error) : this.#requests.takeResends()), this.#lanes.takeAll()]) {
      if (entries.length > 0) this.#complete(entries, entries[0].isAlias ? '/v1/alias' : '/v1/batch', 0, error)
    }
  }

  // Nothing more starts, and every message in memory ends now with `error`, even in a request whose fetch ignores the abort.
  #endAll(error: Error): void {
    this.#gaveUp = true
    this.#failWaiting(error, true)
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
      this.#stopDraining()
    }
  }

  /**
   * Idle for a while (a multi-tenant process keeps thousands of instances, most of them quiet): the
   * slots, limits, rate log, delivery context and breaker go, remade on the next send; not while
   * the breaker is open (a service that is down stays known to be down).
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
    this.#endAll(new TimeoutError(`closeAndFlush: messages still without an outcome after ${timeoutMs} ms`))
  }

  get #laneExpiry(): LaneExpiry {
    const fail = (entries: QueuedEntry[], error: Error): void => this.#complete(entries, '', 0, error)
    return (this.#expiry ??= new LaneExpiry(this.#options.maxRetryTimeMs, this.#timers, this.#lanes, () => this.#triggers.dueSeq, fail))
  }
}
