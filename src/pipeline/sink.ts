import type { QueueFullError } from '../core/errors'
import type { Serialized } from '../message/serialize'
import type { PlanMode } from '../plan/check'
import type { PlanSchemaError, PlanViolationError } from '../plan/errors'
import type { ResolvedPlan } from '../plan/resolved'
import type { FilteredError, PluginError } from '../plugins/errors'
import type { PluginChain } from '../plugins/types'
import type { Callback, MessageType } from '../core/types'
import type { StaticContext } from '../config/static-context'

/** What the pipeline hands its outcomes to: the client's queue and ledger. */
export interface PipelineSink {
  /** Queues a serialized message; returns why it cannot (closed, full, with `held` messages of `heldBytes` in async plugins). */
  queue(serialized: Serialized, isAlias: boolean, callback: Callback | undefined, held: number, heldBytes: number): Error | undefined
  /** A message refused (invalid, too large, closed): `throwIfUnhandled` only for the caller's own input. */
  refuse(error: unknown, type: MessageType, callback: Callback | undefined, throwIfUnhandled: boolean): void
  /** A plugin dropped the message on purpose. */
  filtered(error: FilteredError, callback: Callback | undefined): void
  /** A plugin failed: the message was dropped, or (`sentAnyway`) it goes on. */
  pluginFailed(error: PluginError, callback: Callback | undefined): void
  /**
   * Why a message cannot be taken while `held` messages of about `heldBytes` wait in async
   * plugins (they count toward the queue's bounds): a QueueFullError, else undefined. `bytes`:
   * its estimated size once it waits in a plugin itself; `undefined` before its plugins ran.
   */
  roomBeside(held: number, heldBytes: number, bytes: number | undefined): QueueFullError | undefined
  /** A call broke the tracking plan (whatever the mode: counted, reported, warned of once per event). */
  violation(error: PlanViolationError, sentAnyway: boolean): void
  /** A schema of the plan failed: the message was refused, or (`sentAnyway`) it goes on and the error is reported. */
  planFailed(error: PlanSchemaError, callback: Callback | undefined): void
  /** A plan's schema validates asynchronously: reported once; its messages go unchecked. */
  planIsAsync: (what: string) => void
  /** A message waits for an async plugin: with `waitUntil`, the platform is asked to wait for it too. */
  holdOpen: ((work: Promise<unknown>) => void) | undefined
}

/** What the pipeline runs, from the options. */
export interface PipelineOptions {
  readonly plugins: PluginChain | undefined
  readonly pluginTimeoutMs: number
  readonly context: StaticContext | undefined
  readonly plan: ResolvedPlan | undefined
  readonly planMode: PlanMode
}
