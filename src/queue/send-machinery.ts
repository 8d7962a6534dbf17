import { MAX_BATCH_BYTES } from '../core/limits'
import type { DeliveryContext, RetryInfo } from '../delivery/deliver'
import type { ServiceUnavailableError } from '../core/errors'
import type { ResolvedOptions } from '../config/options'
import { AttemptSlots } from './attempt-slots'
import { BatchLimit } from './batch-limit'
import { createDeliveryContext } from './delivery-context'
import type { HeldTimers } from './held-timers'
import { startLimit } from '../flow-control/in-flight-limit'
import type { Lanes } from './lanes'
import type { HostChange, HostStatus, OutageBreaker } from './outage'
import { RateGate } from './rate-gate'

/** What the machinery asks of the scheduler. */
export interface MachineryHooks {
  /** Whether work could start now but for a free slot: the limit grows only then. */
  hasWorkForSlot(): boolean
  /** Wakes the request pump: a freed slot, an open rate gate or a due probe may start a request. */
  wake(): void
  retry(info: RetryInfo): void
  /** The outage breaker opened: what waits fails with `error`. */
  opened(error: ServiceUnavailableError): void
  /** The outage breaker closed after `downMs`. */
  closed(downMs: number): void
  /** One host's breaker opened or closed. */
  changed(change: HostChange): void
}

/**
 * The parts of an instance that exist only once it sends: the in-flight slots and the batch limit,
 * the request-rate gate, the delivery context (transport, retry policy) and the outage breaker. Each
 * is made on first use, so that an instance that never sends (`enable: false`, a test) never holds one.
 */
export class SendMachinery {
  readonly #options: ResolvedOptions
  readonly #timers: HeldTimers
  readonly #lanes: Lanes
  readonly #hooks: MachineryHooks
  readonly #keepsOnDisk: boolean
  #slots: AttemptSlots | undefined
  #batches: BatchLimit | undefined
  #rate: RateGate | undefined
  #context: DeliveryContext | undefined
  #outage: OutageBreaker | undefined

  /** @param keepsOnDisk - whether the client has a spool (what waits during an outage stays on disk). */
  constructor(options: ResolvedOptions, timers: HeldTimers, lanes: Lanes, keepsOnDisk: boolean, hooks: MachineryHooks) {
    this.#options = options
    this.#keepsOnDisk = keepsOnDisk
    this.#timers = timers
    this.#lanes = lanes
    this.#hooks = hooks
  }

  get slots(): AttemptSlots {
    return (this.#slots ??= new AttemptSlots(this.#options.inFlight.requests, Date.now, () => this.#hooks.hasWorkForSlot()))
  }

  get batchLimit(): BatchLimit {
    const { batches, partialBatches } = this.#options.inFlight
    return (this.#batches ??= new BatchLimit(batches, partialBatches))
  }

  get rate(): RateGate {
    return (this.#rate ??= new RateGate(this.#options.maxRequestsPerSecond, this.#timers, () => this.#hooks.wake()))
  }

  /** The outage breaker, once the instance has sent; undefined before. */
  get outage(): OutageBreaker | undefined {
    return this.#outage
  }

  /** With `fallbackHosts`: each host's breaker, and the host requests go to; undefined without. */
  get hosts(): HostStatus[] | undefined {
    const { host, fallbackHosts } = this.#options
    if (fallbackHosts.length === 0) return undefined
    return this.#outage?.hosts ?? [host, ...fallbackHosts].map((h, i) => ({ host: h, state: 'closed', active: i === 0 }))
  }

  /** HTTP attempts in flight now, and how many may be. */
  get attempts(): { readonly active: number; readonly limit: number } {
    const slots = this.#slots
    return slots === undefined
      ? { active: 0, limit: startLimit(this.#options.inFlight.requests).limit }
      : { active: slots.active, limit: slots.limit }
  }

  /**
   * Lets every part go (an instance idle long enough: see `idle-release.ts`); each is made again
   * on the next send. The in-flight limits start over from their initial values then. Not while a
   * host is down (a fallback host takes the requests): that host stays known to be down.
   */
  release(): void {
    if (this.#outage?.isDegraded === true) return
    this.#slots = undefined
    this.#batches = undefined
    this.#rate = undefined
    this.#context = undefined
    this.#outage = undefined
  }

  get context(): DeliveryContext {
    if (this.#context !== undefined) return this.#context
    const hooks = this.#hooks
    const { context, outage } = createDeliveryContext(this.#options, {
      timers: this.#timers,
      slots: () => this.slots,
      laneReport: (path, signal, startedMs) => {
        if (path === '/v1/batch') this.batchLimit.report(signal, startedMs, Date.now(), this.#lanes.hasFullBatch(MAX_BATCH_BYTES))
      },
      rate: () => this.rate,
      wake: () => hooks.wake(),
      onRetry: (info) => hooks.retry(info),
      outage: {
        opened: (error) => hooks.opened(error),
        closed: (downMs) => hooks.closed(downMs),
        probeDue: () => hooks.wake(),
        changed: (change) => hooks.changed(change),
      },
      keepsOnDisk: this.#keepsOnDisk,
    })
    this.#outage = outage
    this.#context = context
    return context
  }
}
