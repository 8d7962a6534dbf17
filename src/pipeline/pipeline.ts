import { ClosedError, TimeoutError } from '../core/errors'
import { newMessageId } from '../message/message-id'
import { normalizeMessage } from '../message/normalize'
import { serializeMessage, type Serialized } from '../message/serialize'
import { snapshotMessage, type Snapshot } from '../message/snapshot'
import { validateMessage } from '../message/validate'
import { checkAgainstPlan } from '../plan/check'
import { PlanSchemaError } from '../plan/errors'
import type { ResolvedPlan } from '../plan/resolved'
import { FilteredError, PluginError } from '../plugins/errors'
import { checkAndSerialize } from '../plugins/final-check'
import { runChain, WaitingChain, type ChainContext, type ChainOutcome } from '../plugins/run'
import type { PluginInfo, PluginStep } from '../plugins/types'
import type { Callback, Message, MessageType } from '../core/types'
import { estimateBytes } from './estimate'
import { PendingMessages } from './pending'
import type { PipelineOptions, PipelineSink } from './sink'
import { mergeContext } from '../config/static-context'

export type { PipelineOptions, PipelineSink } from './sink'

const VIA_CALL: PluginInfo = Object.freeze({ via: 'call' })
const VIA_IMPORT: PluginInfo = Object.freeze({ via: 'import' })

/**
 * The way of a message when the client has plugins or a `context` option: read and validated as
 * any call's, normalized with the option's context, through the plugins, checked again, serialized
 * and queued. A client without them never builds one (its path is unchanged).
 */
export class MessagePipeline {
  readonly #options: PipelineOptions
  readonly #sink: PipelineSink
  readonly #nowIso: () => string
  readonly #pending = new PendingMessages()
  #closed = false
  // One per message type and origin, made on first use: nothing is allocated per message for it.
  readonly #chainContexts = new Map<string, ChainContext>()

  constructor(options: PipelineOptions, sink: PipelineSink, nowIso: () => string) {
    this.#options = options
    this.#sink = sink
    this.#nowIso = nowIso
  }

  /** Messages waiting for a plugin's promise. */
  get pending(): number {
    return this.#pending.size
  }

  /** See {@link PendingMessages.settled}. */
  settled(timeoutMs?: number): Promise<void> | undefined {
    return this.#pending.settled(timeoutMs)
  }

  /** The close's timeout passed: every message still in a plugin ends now with a TimeoutError. */
  giveUp(timeoutMs: number): void {
    this.#pending.abandonAll(timeoutMs)
  }

  /** Later messages are refused with a ClosedError; those already in the plugins go on. */
  close(): void {
    this.#closed = true
  }

  /** Takes one message through; every outcome goes to the sink. `usePlugins: false` skips the plugins. */
  enqueue(type: MessageType, input: unknown, callback: Callback | undefined, via: 'call' | 'import', usePlugins: boolean): void {
    const sink = this.#sink
    if (this.#closed) {
      sink.refuse(new ClosedError('the client is closed (closeAndFlush was called): the message was not queued'), type, callback, false)
      return
    }
    const steps = usePlugins ? this.#options.plugins?.[type] : undefined
    const hasSteps = steps !== undefined && steps.length > 0
    let snapshot: Snapshot
    try {
      snapshot = snapshotMessage(type, input)
      validateMessage(type, snapshot)
    } catch (err) {
      sink.refuse(err, type, callback, true)
      return
    }
    // The plan checks the caller's own input, before any plugin changes it.
    const plan = this.#options.plan
    if (plan !== undefined && !this.#passesPlan(plan, type, snapshot, callback)) return
    let message: Message
    try {
      const own = snapshot.context
      message = normalizeMessage(type, snapshot, this.#nowIso, newMessageId)
      message.context = mergeContext(this.#options.context, own, hasSteps) as Message['context']
    } catch (err) {
      sink.refuse(err, type, callback, true)
      return
    }
    // Messages in async plugins count toward the queue's bounds: past them, refused at once.
    const held = this.#pending
    if (hasSteps || held.size > 0) {
      const full = sink.roomBeside(held.size, held.bytes, undefined)
      if (full !== undefined) {
        sink.refuse(full, type, callback, false)
        return
      }
    }
    if (!hasSteps) {
      this.#queue(type, message, callback, undefined, '')
      return
    }
    const stamp = message.timestamp
    const outcome = runChain(steps, message, this.#chainContext(type, via))
    if (outcome instanceof WaitingChain) this.#wait(type, outcome, estimateBytes(message), callback, steps, stamp)
    else this.#settle(type, outcome, callback, steps, stamp)
  }

  // A message waits for a plugin's promise: held (and counted) until its plugins let it go, or
  // until a close's timeout gives up on it; it gets its outcome once, whichever comes first.
  #wait(
    type: MessageType,
    chain: WaitingChain,
    bytes: number,
    callback: Callback | undefined,
    steps: readonly PluginStep[],
    stamp: string,
  ): void {
    const sink = this.#sink
    // Now that its size can be estimated: no room for it beside the others, refused at the call still.
    const full = sink.roomBeside(this.#pending.size, this.#pending.bytes, bytes)
    if (full !== undefined) {
      chain.stop()
      sink.refuse(full, type, callback, false)
      return
    }
    const release = this.#pending.hold(bytes, (timeoutMs) => {
      chain.stop()
      const error = new TimeoutError(
        `${type}: closeAndFlush: the message was still in plugin "${chain.step}" after ${timeoutMs} ms (the close's timeout); it was not sent`,
      )
      sink.refuse(error, type, callback, false)
    })
    // The chain never rejects; the catch is for the client's own failure after it, never unhandled.
    const work = chain.result
      .then((later) => {
        if (release() && later !== undefined) this.#settle(type, later, callback, steps, stamp)
      })
      .catch((err: unknown) => sink.refuse(err, type, callback, false))
    sink.holdOpen?.(work)
  }

  // Whether the message goes on: it matches, or the mode is 'report'. 'throw' refuses it as invalid
  // input (thrown when nobody else takes the error); 'drop' refuses it without throwing.
  #passesPlan(plan: ResolvedPlan, type: MessageType, snapshot: Snapshot, callback: Callback | undefined): boolean {
    const mode = this.#options.planMode
    const violation = checkAgainstPlan(plan, type, snapshot, this.#sink.planIsAsync, mode === 'report')
    if (violation === undefined) return true
    // The plan's own failure is no fault of the call's: never thrown; 'report' sends the message.
    if (violation instanceof PlanSchemaError) {
      this.#sink.planFailed(violation, callback)
      return violation.sentAnyway
    }
    this.#sink.violation(violation, mode === 'report')
    if (mode === 'report') return true
    this.#sink.refuse(violation, type, callback, mode === 'throw')
    return false
  }

  #chainContext(type: MessageType, via: 'call' | 'import'): ChainContext {
    const key = via === 'call' ? type : `${type}:import`
    let context = this.#chainContexts.get(key)
    if (context === undefined) {
      const sink = this.#sink
      context = {
        type,
        info: via === 'import' ? VIA_IMPORT : VIA_CALL,
        timeoutMs: this.#options.pluginTimeoutMs,
        reportContinued: (error) => sink.pluginFailed(error, undefined),
      }
      this.#chainContexts.set(key, context)
    }
    return context
  }

  #settle(type: MessageType, outcome: ChainOutcome, callback: Callback | undefined, steps: readonly PluginStep[], stamp: string): void {
    if (outcome instanceof FilteredError) this.#sink.filtered(outcome, callback)
    else if (outcome instanceof PluginError) this.#sink.pluginFailed(outcome, callback)
    else this.#queue(type, outcome, callback, steps, stamp)
  }

  // `stamp`: the timestamp normalization set, which the final check need not parse again.
  #queue(
    type: MessageType,
    message: Message,
    callback: Callback | undefined,
    steps: readonly PluginStep[] | undefined,
    stamp: string,
  ): void {
    const sink = this.#sink
    let serialized: Serialized
    try {
      serialized = steps === undefined ? serializeMessage(message, type === 'alias') : checkAndSerialize(type, message, steps, stamp)
    } catch (err) {
      // Over 32 KB because of the caller's own fields: their error, thrown as today; a plugin's result: reported.
      sink.refuse(err, type, callback, steps === undefined)
      return
    }
    const refused = sink.queue(serialized, type === 'alias', callback, this.#pending.size, this.#pending.bytes)
    if (refused !== undefined) sink.refuse(refused, type, callback, false)
  }
}
