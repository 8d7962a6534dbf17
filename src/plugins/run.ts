import { setUnrefTimeout } from '../timers'
import { describeValue } from '../message/describe'
import type { Message, MessageType } from '../types'
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

const TIMED_OUT = Symbol('timed out')

/**
 * Runs the steps in order on a message: plain calls in one loop while every plugin answers at once;
 * from the first that returns a promise, the rest runs asynchronously for this message only. Never
 * throws and never rejects: a plugin's failure is an outcome.
 */
export function runChain(steps: readonly PluginStep[], message: Message, context: ChainContext): ChainOutcome | Promise<ChainOutcome> {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]
    let result: unknown
    try {
      result = step.process(message, context.info)
    } catch (err) {
      const error = pluginThrew(context.type, step.name, err, step.failsOpen)
      if (!step.failsOpen) return error
      context.reportContinued(error)
      continue
    }
    if (result === undefined) continue
    if (result === null) return new FilteredError(context.type, step.name)
    if (isThenable(result)) return continueLater(steps, i, result, message, context)
    const next = takeResult(result, message, step, context)
    if (!isMessage(next)) return next
    message = next
  }
  return message
}

async function continueLater(
  steps: readonly PluginStep[],
  index: number,
  pending: PromiseLike<unknown>,
  message: Message,
  context: ChainContext,
): Promise<ChainOutcome> {
  const step = steps[index]
  let result: unknown
  try {
    result = await withTimeout(pending, context.timeoutMs)
  } catch (err) {
    const error = pluginThrew(context.type, step.name, err, step.failsOpen)
    if (!step.failsOpen) return error
    context.reportContinued(error)
    result = undefined
  }
  if (result === TIMED_OUT) {
    const error = new PluginError(context.type, step.name, `did not settle within ${context.timeoutMs} ms (pluginTimeout)`, step.failsOpen)
    if (!step.failsOpen) return error
    context.reportContinued(error)
    result = undefined
  }
  if (result === null) return new FilteredError(context.type, step.name)
  if (result !== undefined) {
    const next = takeResult(result, message, step, context)
    if (!isMessage(next)) return next
    message = next
  }
  const rest = runChain(steps.slice(index + 1), message, context)
  return rest
}

// A replacement must be an object; anything else is the plugin's error.
function takeResult(result: unknown, message: Message, step: PluginStep, context: ChainContext): Message | PluginError {
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) return result as Message
  const error = new PluginError(
    context.type,
    step.name,
    `returned ${describeValue(result)} (expected nothing, null or a message object)`,
    step.failsOpen,
  )
  if (!step.failsOpen) return error
  context.reportContinued(error)
  return message
}

function isMessage(outcome: Message | PluginError): outcome is Message {
  return !(outcome instanceof PluginError)
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
}

// The plugin's promise, or TIMED_OUT past `ms`. The timer holds the process open meanwhile: the
// message is owed an outcome. A promise that settles after the timeout is still handled (no
// unhandled rejection), and its result ignored.
function withTimeout(pending: PromiseLike<unknown>, ms: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setUnrefTimeout(() => resolve(TIMED_OUT), ms)
    timer.ref()
    Promise.resolve(pending).then(
      (value) => {
        timer.cancel()
        resolve(value)
      },
      (err: unknown) => {
        timer.cancel()
        reject(err)
      },
    )
  })
}
