import type { ResolvedOptions } from '../config/options'
import { MessagePipeline } from '../pipeline/pipeline'
import { FlushScheduler } from '../queue/scheduler'
import type { SchedulerHooks } from '../queue/scheduler-hooks'
import type { RetryInfo } from '../delivery/deliver'
import { ClientLedger, toError } from './ledger'
import type { AnalyticsStats, Observers } from './observe'
import { createPipelineSink } from './pipeline-sink'
import { spoolFactory } from './spool-factory'

/** The parts of one client: the ledger (counts, events, refusals), the scheduler, and the pipeline when it has one. */
export interface ClientParts {
  readonly ledger: ClientLedger
  readonly scheduler: FlushScheduler
  readonly pipeline: MessagePipeline | undefined
}

/**
 * The scheduler's hooks, told to the ledger. One object with methods, not four closures: an idle
 * instance of a multi-tenant process keeps it (issue 31, what an idle instance holds).
 */
class LedgerHooks implements SchedulerHooks {
  readonly #ledger: ClientLedger

  constructor(ledger: ClientLedger) {
    this.#ledger = ledger
  }

  requestDone(...[path, entries, bytes, error, durationMs, replayed]: Parameters<SchedulerHooks['requestDone']>): void {
    this.#ledger.requestDone(path, entries.length, bytes, error, durationMs, replayed)
  }

  retry(info: RetryInfo): void {
    this.#ledger.retry(info)
  }

  report(err: unknown): void {
    this.#ledger.report(toError(err))
  }

  breaker(change: Parameters<SchedulerHooks['breaker']>[0]): void {
    this.#ledger.breakerChanged(change)
  }
}

/**
 * Makes a client's parts and wires them: the scheduler reports each request's end, retry, error
 * and breaker change to the ledger, and keeps its messages with the spool when the options ask
 * for one. The pipeline is made only with plugins, a `context` option or a plan: without them a
 * message's path is unchanged.
 */
export function wireClient(options: ResolvedOptions, observers: Observers, clock: () => string): ClientParts {
  const ledger = new ClientLedger(options, observers)
  const scheduler = new FlushScheduler(options, new LedgerHooks(ledger), spoolFactory(options, ledger))
  const { plugins, pluginTimeoutMs, context, plan, planMode } = options
  if (plugins === undefined && context === undefined && plan === undefined) return { ledger, scheduler, pipeline: undefined }
  const sink = createPipelineSink(scheduler, ledger, options.waitUntil)
  return { ledger, scheduler, pipeline: new MessagePipeline({ plugins, pluginTimeoutMs, context, plan, planMode }, sink, clock) }
}

/** A snapshot of a client's counts, from its parts (`stats()`). */
export function clientStats(
  options: ResolvedOptions,
  ledger: ClientLedger,
  scheduler: FlushScheduler,
  pipeline: MessagePipeline | undefined,
): AnalyticsStats {
  const { active, limit, breaker, hosts } = scheduler.sending
  const { completed, ...counts } = ledger.counts()
  const queued = scheduler.queued
  const inFlight = scheduler.inFlight
  return {
    queued,
    inPlugins: pipeline?.pending ?? 0,
    inFlight,
    ...counts,
    accepted: completed + queued + inFlight,
    queueCapacity: options.maxQueueSize,
    requestsInFlight: active,
    inFlightLimit: limit,
    breaker,
    ...(hosts === undefined ? {} : { hosts }),
    ...(scheduler.spool === undefined ? {} : { spool: scheduler.spool }),
  }
}
