import type { AttemptReport } from '../delivery/deliver'
import {
  afterGivingUp,
  afterProbeFailed,
  afterVerdict,
  CLOSED,
  probeDueMs,
  retryWaitCapMs,
  type BreakerPolicy,
  type BreakerState,
} from '../flow-control/breaker'
import { ServiceUnavailableError } from '../core/errors'
import type { Timer } from '../platform/timers'
import type { HeldTimers } from './held-timers'

/** What one host's breaker tells the instance's outage breaker (`outage.ts`). */
export interface HostBreakerHooks {
  /** The breaker of this host opened. */
  opened(): void
  /** The breaker of this host closed after `downMs`. */
  closed(downMs: number): void
  /** A probe of this host may start now. */
  probeDue(): void
}

/** A breaker's state as `stats()` reports it. */
export type BreakerStatus = 'closed' | 'open' | 'probing'

/** Where the messages of a host that is down go, for the text of its error. */
export interface OutageFate {
  /** The host that requests go to meanwhile (a fallback host); none when every host is down. */
  readonly failoverTo?: string | undefined
  /** Whether other hosts (the fallback hosts) are down too. */
  readonly othersDown?: boolean
}

/**
 * The outage breaker of one host, driven: it feeds {@link afterVerdict} what every attempt to the
 * host said, times the probes, and writes the error of the host while it is down.
 */
export class HostBreaker {
  readonly #policy: BreakerPolicy
  readonly #timers: HeldTimers
  readonly #hooks: HostBreakerHooks
  readonly #now: () => number
  readonly #random: () => number
  #state: BreakerState = CLOSED
  #last: { status?: number | undefined; body?: string | undefined; error?: Error | undefined } = {}
  #lastProbeMs = 0
  #openedMs = 0
  #isProbing = false
  #probeTimer: Timer | undefined
  #lastFailure = ''
  #lastAcceptedStartMs = -Infinity

  readonly #keepsOnDisk: boolean

  /**
   * @param host - the host this breaker watches.
   * @param keepsOnDisk - whether the client has a spool: then what waits during an outage stays on disk, and the error says so.
   */
  constructor(
    readonly host: string,
    policy: BreakerPolicy,
    timers: HeldTimers,
    hooks: HostBreakerHooks,
    now: () => number,
    random: () => number,
    keepsOnDisk = false,
  ) {
    this.#keepsOnDisk = keepsOnDisk
    this.#policy = policy
    this.#timers = timers
    this.#hooks = hooks
    this.#now = now
    this.#random = random
  }

  get isOpen(): boolean {
    return this.#state.isOpen
  }

  get status(): BreakerStatus {
    return !this.#state.isOpen ? 'closed' : this.#isProbing ? 'probing' : 'open'
  }

  /** When the latest attempt that the host accepted (2xx) started, ms: requests failing since before then carry a batch problem. */
  get lastAcceptedStartMs(): number {
    return this.#lastAcceptedStartMs
  }

  /** The longest a retry may wait now (shorter while failures build a run, so that attempts keep looking). */
  get retryWaitCapMs(): number {
    return retryWaitCapMs(this.#state, this.#policy)
  }

  /**
   * The error of a message while the breaker is open; undefined while it is closed. Without a
   * spool the message failed; with one it waits on disk, and its text says so; while a fallback
   * host takes the requests, the text says where they go.
   */
  error(path: string, fate: OutageFate = {}): ServiceUnavailableError | undefined {
    if (!this.#state.isOpen) return undefined
    const { status, error } = this.#last
    const others = fate.othersDown === true ? ', and so is every fallback host' : ''
    const outcome =
      fate.failoverTo !== undefined
        ? `requests go to ${fate.failoverTo} until a probe of this host gets an answer (every 1-30 s).`
        : `${this.#keepsOnDisk ? 'the message is kept in the spool on disk and will be delivered once the service is back' : 'the message failed at once instead of being retried'}. Delivery resumes when a probe (every 1-30 s) gets an answer.`
    return new ServiceUnavailableError(
      `${this.host}${path}: the service is unavailable (last: ${this.#lastFailure})${others}; the outage breaker is open, so ${outcome}`,
      status,
      1,
      { cause: error, url: `${this.host}${path}`, body: this.#last.body, lastFailure: this.#lastFailure },
    )
  }

  /**
   * An attempt to this host ended: the breaker follows, and opens or closes. A failure of a request
   * that carries a batch problem (it keeps failing while the host accepts others) says nothing about the host.
   */
  report(report: AttemptReport): void {
    if (report.signal === 'success') this.#lastAcceptedStartMs = Math.max(this.#lastAcceptedStartMs, report.startedMs)
    if (report.isBatchProblem === true) return
    const now = this.#now()
    const wasOpen = this.#state.isOpen
    if (report.verdict !== 'alive') this.#last = { status: report.status, body: report.body, error: report.error }
    if (report.isProbe) {
      this.#isProbing = false
      this.#lastProbeMs = now
    }
    this.#state =
      report.isProbe && report.verdict !== 'alive'
        ? afterProbeFailed(this.#state, this.#policy, now, this.#random)
        : afterVerdict(this.#state, this.#policy, report.verdict, report.startedMs, now, this.#random)
    if (!wasOpen && this.#state.isOpen) this.#open(now)
    else if (wasOpen && !this.#state.isOpen) this.#close(now)
  }

  /**
   * A request's retries ran out on answers that kept the breaker closed (a 429, a 5xx), and with a
   * spool it waits on disk instead of failing: the breaker opens (see {@link afterGivingUp}).
   */
  gaveUp(status: number | undefined, body: string | undefined, error: Error): void {
    if (this.#state.isOpen) return
    const now = this.#now()
    this.#last = { status, body, error }
    this.#state = afterGivingUp(this.#state, this.#policy, now, this.#random)
    this.#open(now)
  }

  /**
   * Whether the probe may start now (then the caller sends exactly one attempt as the probe);
   * else a timer calls `probeDue` when it may.
   */
  mayProbe(isFlushAwaited: boolean): boolean {
    if (this.#isProbing) return false
    const dueMs = probeDueMs(this.#state, this.#policy, this.#lastProbeMs, isFlushAwaited)
    const waitMs = dueMs - this.#now()
    if (waitMs <= 0) {
      this.#cancelProbeTimer()
      this.#isProbing = true
      return true
    }
    this.#cancelProbeTimer()
    this.#probeTimer = this.#timers.start(() => {
      this.#probeTimer = undefined
      this.#hooks.probeDue()
    }, waitMs)
    return false
  }

  /** The probe that `mayProbe` allowed was never sent (its request ended first): the next may start. */
  probeCancelled(): void {
    this.#isProbing = false
  }

  #open(now: number): void {
    const { status, body, error } = this.#last
    const answer = body === undefined ? `${status}` : `${status} (${body})`
    this.#lastFailure = status !== undefined ? `the service answered ${answer}` : (error?.message ?? 'a network error')
    this.#lastProbeMs = now
    this.#openedMs = now
    this.#hooks.opened()
  }

  #close(now: number): void {
    this.#cancelProbeTimer()
    this.#isProbing = false
    this.#hooks.closed(now - this.#openedMs)
  }

  #cancelProbeTimer(): void {
    if (this.#probeTimer === undefined) return
    this.#timers.stop(this.#probeTimer)
    this.#probeTimer = undefined
  }
}
