import { EventrailError, brandError } from '../core/errors'
import { describeThrown } from '../core/describe'
import type { MessageType } from '../core/types'

/**
 * A plugin returned `null` for the message: it was dropped on purpose and not sent. An outcome, not
 * a failure: the message's callback and `drop` listeners get it; `error` listeners and
 * `errorHandler` do not, and `flush()` does not reject for it.
 */
export class FilteredError extends EventrailError {
  override name = 'FilteredError'

  static {
    brandError(this, 'FilteredError')
  }
  /** The name of the plugin that dropped the message. */
  readonly plugin: string

  constructor(type: MessageType, plugin: string) {
    super(`${type}: filtered by plugin "${plugin}" (it returned null); the message was not sent`)
    this.plugin = plugin
  }
}

/**
 * A plugin threw, rejected, timed out or returned something that is not a message. With the
 * plugin's default `onError: 'drop'` the message was not sent; `cause` holds what the plugin threw.
 */
export class PluginError extends EventrailError {
  override name = 'PluginError'

  static {
    brandError(this, 'PluginError')
  }
  /** The name of the plugin that failed. */
  readonly plugin: string
  /** Whether the message was sent anyway (`onError: 'continue'`). */
  readonly sentAnyway: boolean

  constructor(type: MessageType, plugin: string, failure: string, sentAnyway: boolean, options?: ErrorOptions) {
    const outcome = sentAnyway
      ? 'the message was sent as it stood (onError: "continue")'
      : 'the message was dropped (the plugin fails closed; give it onError: "continue" to send the message anyway)'
    super(`${type}: plugin "${plugin}" ${failure}; ${outcome}`, options)
    this.plugin = plugin
    this.sentAnyway = sentAnyway
  }
}

/** A PluginError for what a plugin threw or rejected with. */
export function pluginThrew(type: MessageType, plugin: string, thrown: unknown, sentAnyway: boolean): PluginError {
  return new PluginError(type, plugin, `threw ${describeThrown(thrown)}`, sentAnyway, { cause: thrown })
}
