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

/** What the breaker tells the scheduler. */
export interface OutageHooks {
  /** The breaker opened: fail what waits, and tell the user once. */
  opened(error: ServiceUnavailableError): void
  /** The breaker closed after `downMs`: send what waits. */
  closed(downMs: number): void
  /** A probe may start now. */
  probeDue(): void
}

/** The breaker's state as `stats()` reports it. */
export type BreakerStatus = 'closed' | 'open' | 'probing'

/**
 * The outage breaker of one instance, driven: it feeds {@link afterVerdict} what every attempt
 * said, wakes the retries that wait (they fail at once when it opens), times the probes, and
 * writes the error that messages get while the service is down.
 */
export class OutageBreaker {
  readonly #policy: BreakerPolicy
  readonly #timers: HeldTimers
  readonly #hooks: OutageHooks
  readonly #now: () => number
  readonly #random: () => number
  readonly #parked = new Set<() => void>()
  #state: BreakerState = CLOSED
  #last: { status?: number | undefined; body?: string | undefined; error?: Error | undefined } = {}
  #lastProbeMs = 0
  #openedMs = 0
  #isProbing = false
  #probeTimer: Timer | undefined
  #lastFailure = ''
  #lastAcceptedStartMs = -Infinity

  readonly #host: string
  readonly #keepsOnDisk: boolean

  /** @param keepsOnDisk - whether the client has a spool: then what waits during an outage stays on disk, and the error says so. */
  constructor(
    host: string,
    policy: BreakerPolicy,
    timers: HeldTimers,
    hooks: OutageHooks,
    now: () => number,
    random: () => number,
    keepsOnDisk = false,
  ) {
    this.#host = host
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

  /** When the latest attempt that the service accepted (2xx) started, ms: requests failing since before then carry a batch problem. */
  get lastAcceptedStartMs(): number {
    return this.#lastAcceptedStartMs
  }

  /** The longest a retry may wait now (shorter while failures build a run, so that attempts keep looking). */
  get retryWaitCapMs(): number {
    return retryWaitCapMs(this.#state, this.#policy)
  }

  /**
   * The error of a message while the breaker is open; undefined while it is closed. Without a
   * spool the message failed; with one it waits on disk, and its text says so.
   */
  error(path: string): ServiceUnavailableError | undefined {
    if (!this.#state.isOpen) return undefined
    const { status, error } = this.#last
    const fate = this.#keepsOnDisk
      ? 'the message is kept in the spool on disk and will be delivered once the service is back'
      : 'the message failed at once instead of being retried'
    return new ServiceUnavailableError(
      `${this.#host}${path}: the service is unavailable (last: ${this.#lastFailure}); the outage breaker is open, so ${fate}. Delivery resumes when a probe (every 1-30 s) gets an answer.`,
      status,
      1,
      { cause: error, url: `${this.#host}${path}`, body: this.#last.body, lastFailure: this.#lastFailure },
    )
  }

  /**
   * An attempt ended: the breaker follows, and opens or closes. A failure of a request that carries
   * a batch problem (it keeps failing while the service accepts others) says nothing about the service.
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
   * Whether the probe may start now (then the caller starts exactly one request as the probe);
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

  /** Resolves after `ms`; rejects with `signal`'s reason when it aborts, or with the outage error when the breaker opens first. */
  sleep(ms: number, signal: AbortSignal, path: string): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error)
    const controller = new AbortController()
    const follow = (): void => controller.abort(signal.reason)
    const wake = (): void => controller.abort(this.error(path))
    signal.addEventListener('abort', follow, { once: true })
    this.#parked.add(wake)
    return this.#timers.sleep(ms, controller.signal).then(
      () => {
        this.#parked.delete(wake)
        signal.removeEventListener('abort', follow)
        const outage = this.error(path)
        if (outage !== undefined) throw outage
      },
      (err: unknown) => {
        this.#parked.delete(wake)
        signal.removeEventListener('abort', follow)
        throw err
      },
    )
  }

  #open(now: number): void {
    const { status, body, error } = this.#last
    const answer = body === undefined ? `${status}` : `${status} (${body})`
    this.#lastFailure = status !== undefined ? `the service answered ${answer}` : (error?.message ?? 'a network error')
    this.#lastProbeMs = now
    this.#openedMs = now
    for (const wake of [...this.#parked]) wake()
    this.#hooks.opened(this.error('/v1/batch') as ServiceUnavailableError)
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
