import { ClosedError, DeliveryError, FilteredError, PlanViolationError, PluginError, TimeoutError, ValidationError } from '../../src'
import type { Fate, ModelConfig } from './configs'

/** One accepted message: a call that did not throw. */
export interface MessageRecord {
  readonly id: string
  readonly via: 'callback' | 'deliver'
  readonly fate: Fate
  /** Made after closeAndFlush() was called. */
  readonly afterClose: boolean
  /** Outcomes seen: callback runs, or the deliver promise's resolution. */
  outcomes: number
  error: Error | undefined
  /** With a spool, deliver.* settled `kept: true`: on disk, it may still be delivered (and counted as sent). */
  kept?: boolean
}

type ErrorClass = abstract new (...args: never[]) => Error

/** The error class a message must be refused with before any request, or undefined when it may go out. */
export function expectedRefusal(m: MessageRecord, config: ModelConfig): ErrorClass | undefined {
  switch (m.fate) {
    case 'invalid':
      return ValidationError
    case 'planViolation':
      return config.planMode === 'report' ? undefined : PlanViolationError
    case 'pluginDrop':
      return FilteredError
    case 'pluginThrow':
    case 'pluginSlow':
      return PluginError
    default:
      return m.afterClose ? ClosedError : undefined
  }
}

/** What is wrong with the outcome of `m`, or undefined when the model allows it. */
export function unexpectedOutcome(m: MessageRecord, refusal: ErrorClass | undefined, config: ModelConfig): string | undefined {
  const error = m.error
  const name = error === undefined ? 'delivered' : `${error.name}: ${error.message.slice(0, 160)}`
  // A closed client refuses what comes later, whatever it is (an invalid message may still be refused as invalid).
  if (m.afterClose)
    return error instanceof ClosedError || (refusal !== undefined && error instanceof refusal)
      ? undefined
      : `expected ClosedError, got ${name}`
  if (refusal !== undefined) {
    if (error instanceof refusal && (refusal !== ValidationError || !(error instanceof PlanViolationError))) return undefined
    // A close whose timeout passes while the message is still in an async plugin ends it with a
    // TimeoutError before the plugin's own timeout (issue 29, finding 15).
    if (error instanceof TimeoutError && config.plugins === 'async') return undefined
    return `expected ${refusal.name}, got ${name}`
  }
  if (error === undefined || error instanceof DeliveryError || error instanceof TimeoutError) return undefined
  // Closing with a timeout while an async plugin still holds the message: refused as closed.
  if (error instanceof ClosedError && config.plugins === 'async') return undefined
  return `expected delivered or a DeliveryError/TimeoutError, got ${name}`
}
