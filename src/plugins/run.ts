import { setUnrefTimeout, type Timer } from '../platform/timers'
import { describeThrown, describeValue } from '../core/describe'
import type { Message, MessageType } from '../core/types'
import { FilteredError, PluginError, pluginThrew } from './errors'
import type { PluginInfo, PluginStep } from './types'

/** What the plugins made of a message: the message to send, or why it is not sent. */
export type ChainOutcome = Message | FilteredError | PluginError

/** What running the plugins needs besides the message. */
export interface ChainContext {
  readonly type: MessageType
  readonly info: PluginInfo
  /** Longest a plugin's promise may take, in milliseconds. */
  readonly timeoutMs: number
  /** A plugin with `onError: 'continue'` failed: the message goes on; the error is only reported. */
  readonly reportContinued: (error: PluginError) => void
}

/**
 * Runs the steps in order on a message: plain calls in one loop while every plugin answers at once;
 * from the first that returns a promise, the rest runs asynchronously for this message only (a
 * {@link WaitingChain}). Never throws and never rejects: a plugin's failure, and a result that
 * cannot be read, is an outcome.
 */
export function runChain(steps: readonly PluginStep[], message: Message, context: ChainContext): ChainOutcome | WaitingChain {
  return runFrom(steps, 0, message, context, undefined)
}

/**
 * A message whose plugins are still at work: `result` settles with what they made of it, or with
 * `undefined` once {@link WaitingChain.stop} was called (the message was given its outcome
 * elsewhere). Never rejects.
 */
export class WaitingChain {
  readonly result: Promise<ChainOutcome | undefined>
  #resolve!: (outcome: ChainOutcome | undefined) => void
  #timer: Timer | undefined
  #stopped = false
  #step = ''

  constructor() {
    this.result = new Promise((resolve) => (this.#resolve = resolve))
  }

  /** The name of the plugin the message waits for. */
  get step(): string {
    return this.#step
  }

  /** Gives up on the message: its pluginTimeout timer is cleared, and no later plugin runs for it. */
  stop(): void {
    this.#stopped = true
    this.#timer?.cancel()
    this.#timer = undefined
    this.#resolve(undefined)
  }

  /** Waits for the step at `index` (at most `pluginTimeout`), then runs the steps after it. */
  wait(steps: readonly PluginStep[], index: number, pending: Pending, message: Message, context: ChainContext): void {
    const step = steps[index]
    this.#step = step.name
    let isDone = false
    const after = (outcome: Message | FilteredError | PluginError | Pending): void => {
      if (isDone) return
      isDone = true
      timer.cancel()
      this.#timer = undefined
      if (this.#stopped) return
      // A promise never resolves with a thenable (it adopts it): one whose `then` changed since is hostile.
      if (outcome instanceof Pending) outcome = failed(unreadable(context, step, new TypeError('its then changed')), step, message, context)
      if (!isMessage(outcome)) this.#resolve(outcome)
      else {
        const rest = runFrom(steps, index + 1, outcome, context, this)
        if (rest !== this) this.#resolve(rest as ChainOutcome)
      }
    }
    // The timer holds the process open meanwhile: the message is owed an outcome (stop() clears it).
    const timer = setUnrefTimeout(() => {
      const error = new PluginError(
        context.type,
        step.name,
        `did not settle within ${context.timeoutMs} ms (pluginTimeout)`,
        step.failsOpen,
      )
      after(failed(error, step, message, context))
    }, context.timeoutMs)
    timer.ref()
    this.#timer = timer
    // A native promise adopts the thenable: its `then` is called once, and what it throws rejects.
    new Promise<unknown>((resolve, reject) => pending.then.call(pending.value, resolve, reject)).then(
      (value) => after(readResult(value, message, step, context)),
      (err: unknown) => after(failed(pluginThrew(context.type, step.name, err, step.failsOpen), step, message, context)),
    )
  }
}

/** A plugin's result that is a thenable: the value and the `then` read from it, once. */
class Pending {
  constructor(
    readonly value: object,
    readonly then: (onValue: (value: unknown) => void, onError: (err: unknown) => void) => unknown,
  ) {}
}

// The steps from `index`, synchronously while the plugins answer at once; `waiting` (or a new
// WaitingChain) from the first that returns a promise.
function runFrom(
  steps: readonly PluginStep[],
  index: number,
  message: Message,
  context: ChainContext,
  waiting: WaitingChain | undefined,
): ChainOutcome | WaitingChain {
  for (let i = index; i < steps.length; i++) {
    const step = steps[i]
    let next: Message | FilteredError | PluginError | Pending
    try {
      next = readResult(step.process(message, context.info), message, step, context)
    } catch (err) {
      next = failed(pluginThrew(context.type, step.name, err, step.failsOpen), step, message, context)
    }
    if (next instanceof Pending) {
      const chain = waiting ?? new WaitingChain()
      chain.wait(steps, i, next, message, context)
      return chain
    }
    if (!isMessage(next)) return next
    message = next
  }
  return message
}

// What a step returned, read once and guarded: nothing keeps the message; null filters it; a
// thenable is waited for; an object replaces the message, as the client's own shallow copy (the
// plugin's object may be frozen, or a Proxy: the client never writes into it, nor reads it again).
// A result that cannot be read (a Proxy that throws, a revoked one, a throwing `then` getter) is
// the plugin's failure.
function readResult(
  result: unknown,
  message: Message,
  step: PluginStep,
  context: ChainContext,
): Message | FilteredError | PluginError | Pending {
  if (result === undefined) return message
  if (result === null) return new FilteredError(context.type, step.name)
  if (result === message) return message
  const kind = typeof result
  if (kind !== 'object' && kind !== 'function') return invalid(result, message, step, context)
  try {
    const then = (result as { then?: unknown }).then
    if (typeof then === 'function') return new Pending(result, then as Pending['then'])
    if (kind === 'function' || Array.isArray(result)) return invalid(result, message, step, context)
    return { ...(result as Message) }
  } catch (err) {
    return failed(unreadable(context, step, err), step, message, context)
  }
}

function unreadable(context: ChainContext, step: PluginStep, err: unknown): PluginError {
  const failure = `returned a message that cannot be read (${describeThrown(err)})`
  return new PluginError(context.type, step.name, failure, step.failsOpen, { cause: err })
}

// A replacement must be an object; anything else is the plugin's error.
function invalid(result: unknown, message: Message, step: PluginStep, context: ChainContext): Message | PluginError {
  const failure = `returned ${describeValue(result)} (expected nothing, null or a message object)`
  return failed(new PluginError(context.type, step.name, failure, step.failsOpen), step, message, context)
}

// A step failed: the message ends with the error (fails closed), or goes on as it stood (`continue`).
function failed(error: PluginError, step: PluginStep, message: Message, context: ChainContext): Message | PluginError {
  if (!step.failsOpen) return error
  context.reportContinued(error)
  return message
}

function isMessage(outcome: Message | FilteredError | PluginError): outcome is Message {
  return !(outcome instanceof PluginError) && !(outcome instanceof FilteredError)
}
