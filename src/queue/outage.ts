import type { AttemptReport, Route } from '../delivery/deliver'
import type { BreakerPolicy } from '../flow-control/breaker'
import type { ServiceUnavailableError } from '../core/errors'
import type { Transport } from '../platform/transport'
import type { HeldTimers } from './held-timers'
import { HostBreaker, type BreakerStatus } from './host-breaker'

export type { BreakerStatus } from './host-breaker'

/**
 * One host's breaker opened or closed, and where requests go now (`activeHost`; none while every
 * host is down: the outage).
 */
export type HostChange =
  | { readonly state: 'open'; readonly host: string; readonly error: ServiceUnavailableError; readonly activeHost: string | undefined }
  | { readonly state: 'closed'; readonly host: string; readonly downMs: number; readonly activeHost: string }

/** One host as `stats().hosts` shows it. */
export interface HostStatus {
  readonly host: string
  /** Its breaker: closed (it answers), open (down), probing (down, a probe in flight). */
  readonly state: BreakerStatus
  /** Whether requests go to it now: the first host, in the order given, whose breaker is closed. */
  readonly active: boolean
}

/** What the breaker tells the scheduler. */
export interface OutageHooks {
  /** Every host is down (the breaker of the last one up opened): fail what waits, and tell the user once. */
  opened(error: ServiceUnavailableError): void
  /** A host answers again after every host was down for `downMs`: send what waits. */
  closed(downMs: number): void
  /** A probe may start now. */
  probeDue(): void
  /** One host's breaker opened or closed (the `breaker` event); called before `opened` and `closed`. */
  changed(change: HostChange): void
}

/** What each host needs: its URL and its own transport (the write key goes to it). */
export interface HostRoute {
  readonly host: string
  readonly transport: Transport
}

// A retry that waits is woken when its host went down and another took over: it goes there now.
const MOVED = Symbol('moved to another host')

/**
 * The outage breaker of one instance, over its hosts (`host`, then `fallbackHosts`): one
 * {@link HostBreaker} each. Requests go to the first host whose breaker is closed; a host before it
 * that is down gets a request's attempt as its probe when its breaker allows one, and takes the
 * requests back once a probe gets an answer. The instance is down (`isOpen`: messages fail at once
 * or wait in the spool, one request at a time probes) only while every host is down. It wakes the
 * retries that wait (they fail at once when every host is down, and retry on the next host at
 * once when theirs went down), and writes the error that messages get meanwhile.
 */
export class OutageBreaker {
  readonly #hosts: readonly HostRoute[]
  readonly #breakers: readonly HostBreaker[]
  readonly #hooks: OutageHooks
  readonly #timers: HeldTimers
  readonly #parked = new Set<(why: typeof MOVED | 'outage') => void>()
  /** The host the pump's probe goes to while every host is down (set by `mayProbe`). */
  #probeFor: number | undefined
  #lastOpened = 0

  /** @param keepsOnDisk - whether the client has a spool: then what waits during an outage stays on disk, and the error says so. */
  constructor(
    hosts: readonly HostRoute[],
    policy: BreakerPolicy,
    timers: HeldTimers,
    hooks: OutageHooks,
    now: () => number,
    random: () => number,
    keepsOnDisk = false,
  ) {
    this.#hosts = hosts
    this.#hooks = hooks
    this.#timers = timers
    this.#breakers = hosts.map(({ host }, i) => {
      const hostHooks = {
        opened: () => this.#opened(i),
        closed: (downMs: number) => this.#closed(i, downMs),
        probeDue: () => hooks.probeDue(),
      }
      return new HostBreaker(host, policy, timers, hostHooks, now, random, keepsOnDisk)
    })
  }

  /** Whether every host is down. */
  get isOpen(): boolean {
    return this.#active() < 0
  }

  /** Whether some host is down (maybe not every one): the instance keeps its breakers then. */
  get isDegraded(): boolean {
    return this.#breakers.some((b) => b.isOpen)
  }

  /** Closed while some host answers; open (or probing, a probe in flight) while every host is down. */
  get status(): BreakerStatus {
    if (!this.isOpen) return 'closed'
    return this.#breakers.some((b) => b.status === 'probing') ? 'probing' : 'open'
  }

  /** Each host, in order, with its breaker's state and whether requests go to it. */
  get hosts(): HostStatus[] {
    const active = this.#active()
    return this.#breakers.map((b, i) => ({ host: b.host, state: b.status, active: i === active }))
  }

  /**
   * The longest a retry after a failure on `failedHost` may wait now: none when that host is down
   * and another takes the requests (the wait was for a host that is down); else shorter while
   * failures build a run on the host requests go to.
   */
  retryWaitCapMs(failedHost: string): number {
    const active = this.#active()
    if (active >= 0 && this.#breakerOf(failedHost).isOpen) return 0
    return this.#breakers[active]?.retryWaitCapMs ?? Infinity
  }

  /** When the latest attempt that `host` accepted (2xx) started, ms. */
  lastAcceptedStartMs(host: string): number {
    return this.#breakerOf(host).lastAcceptedStartMs
  }

  /** The error of a message while every host is down; undefined while one answers. */
  error(path: string): ServiceUnavailableError | undefined {
    if (!this.isOpen) return undefined
    return this.#breakers[this.#lastOpened].error(path, { othersDown: this.#breakers.length > 1 })
  }

  /** An attempt ended: the breaker of its host follows. */
  report(report: AttemptReport): void {
    this.#breakerOf(report.host).report(report)
  }

  /**
   * A request's retries ran out on answers that kept the breakers closed (a 429, a 5xx), and with
   * a spool it waits on disk instead of failing: the host requests go to is taken as down.
   */
  gaveUp(status: number | undefined, body: string | undefined, error: Error): void {
    this.#breakers[this.#active()]?.gaveUp(status, body, error)
  }

  /**
   * While every host is down: whether a probe may start now (then the caller starts exactly one
   * request as the probe, and its attempt goes to the host whose probe is due, the first in order);
   * else the hosts' timers call `probeDue` when one may.
   */
  mayProbe(isFlushAwaited: boolean): boolean {
    for (let i = 0; i < this.#breakers.length; i++) {
      if (this.#breakers[i].mayProbe(isFlushAwaited)) {
        this.#probeFor = i
        return true
      }
    }
    return false
  }

  /**
   * Where the next attempt goes: the pump's probe to the host it was for; else a host before the
   * one requests go to, as its probe, when its breaker allows one; else the first host that answers.
   */
  route(isProbe: boolean): Route {
    const probeFor = isProbe ? this.#probeFor : undefined
    if (isProbe) this.#probeFor = undefined
    if (probeFor !== undefined) return this.#routeTo(probeFor, true)
    const active = this.#active()
    for (let i = 0; i < active; i++) if (this.#breakers[i].mayProbe(false)) return this.#routeTo(i, true)
    return this.#routeTo(Math.max(active, 0), false)
  }

  /**
   * Resolves after `ms` (at once when the host requests went to went down and another took over);
   * rejects with `signal`'s reason when it aborts, or with the outage error when every host is down.
   */
  sleep(ms: number, signal: AbortSignal, path: string): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error)
    const controller = new AbortController()
    const follow = (): void => controller.abort(signal.reason)
    const wake = (why: typeof MOVED | 'outage'): void => controller.abort(why === MOVED ? MOVED : this.error(path))
    signal.addEventListener('abort', follow, { once: true })
    this.#parked.add(wake)
    const end = (): void => {
      this.#parked.delete(wake)
      signal.removeEventListener('abort', follow)
    }
    const afterWait = (): void => {
      const outage = this.error(path)
      if (outage !== undefined) throw outage
    }
    return this.#timers.sleep(ms, controller.signal).then(
      () => {
        end()
        afterWait()
      },
      (err: unknown) => {
        end()
        if (err !== MOVED) throw err
        afterWait()
      },
    )
  }

  #active(): number {
    return this.#breakers.findIndex((b) => !b.isOpen)
  }

  #breakerOf(host: string): HostBreaker {
    return this.#breakers.find((b) => b.host === host) ?? this.#breakers[0]
  }

  #routeTo(i: number, isProbe: boolean): Route {
    const breaker = this.#breakers[i]
    return { ...this.#hosts[i], isProbe, cancel: isProbe ? () => breaker.probeCancelled() : () => undefined }
  }

  #opened(i: number): void {
    this.#lastOpened = i
    const active = this.#active()
    const activeHost = this.#hosts[active]?.host
    const error = this.#breakers[i].error('/v1/batch', { failoverTo: activeHost, othersDown: active < 0 && this.#breakers.length > 1 })
    this.#hooks.changed({ state: 'open', host: this.#hosts[i].host, error: error as ServiceUnavailableError, activeHost })
    // The host that went down was the one requests went to (`active > i`): the retries that wait
    // were for it, and go to the next host at once. When every host is down they fail at once.
    if (active < 0 || active > i) for (const wake of [...this.#parked]) wake(active < 0 ? 'outage' : MOVED)
    if (active < 0) this.#hooks.opened(error as ServiceUnavailableError)
  }

  #closed(i: number, downMs: number): void {
    const wasDown = this.#breakers.every((b, j) => j === i || b.isOpen)
    const active = this.#active()
    this.#hooks.changed({ state: 'closed', host: this.#hosts[i].host, downMs, activeHost: this.#hosts[active].host })
    if (wasDown) this.#hooks.closed(downMs)
  }
}
