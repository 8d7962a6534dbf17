import type { AnyEvents, EventCatalog, Message, MessageType, Properties, Traits } from '../core/types'

/** A track message as a plugin sees it: with a catalog, `event` narrows `properties`. */
export type PluginTrack<E extends EventCatalog = AnyEvents> = string extends keyof E
  ? Message & { type: 'track'; event: string; properties?: Properties }
  : { [K in keyof E & string]: Message & { type: 'track'; event: K; properties?: E[K] } }[keyof E & string]

/**
 * A message as a plugin sees it: validated and normalized, in the shape it will go on the wire
 * (`type`, `messageId`, an ISO-8601 `timestamp`, `context.library`, ids as strings). The plugin's
 * to change: it is the client's own copy, never the caller's object.
 */
export type PluginMessage<E extends EventCatalog = AnyEvents> =
  | PluginTrack<E>
  | (Message & { type: 'identify'; traits?: Traits })
  | (Message & { type: 'page' | 'screen'; name?: string; category?: string; properties?: Properties })
  | (Message & { type: 'group'; groupId: string; traits?: Traits })
  | (Message & { type: 'alias'; userId: string; previousId: string })

/** What a plugin's `process` may return: nothing (keep the message, changed in place or not), a replacement, or `null` (drop it). */
export type PluginResult<E extends EventCatalog = AnyEvents> = PluginMessage<E> | Message | null | undefined | void

/** Where a message came from, for a plugin that treats them apart. */
export interface PluginInfo {
  /** `'call'`: a method of the client (`track()` …); `'import'`: `importMessages()` or `eventrail import`. */
  readonly via: 'call' | 'import'
}

/**
 * A step every message goes through after validation and normalization, before serialization and
 * the 32 KB check: enrich it, scrub it, or drop it. Give plugins once, in order, as the client's
 * `plugins` option.
 *
 * @typeParam E - the client's event catalog, so that `message.properties` narrows per event.
 * @example
 * ```ts
 * const dropInternal: Plugin = {
 *   name: 'drop-internal',
 *   types: ['track'],
 *   process: (message) => (message.type === 'track' && message.event.startsWith('internal:') ? null : undefined),
 * }
 * const analytics = new Analytics('WRITE_KEY', { plugins: [dropInternal] })
 * ```
 */
export interface Plugin<E extends EventCatalog = AnyEvents> {
  /** Unique among the client's plugins; errors and outcomes name the plugin by it. */
  readonly name: string
  /** Only messages of these types reach `process`. Default: every type. */
  readonly types?: readonly MessageType[]
  /**
   * What a throw, a rejection, a timeout or an invalid return value does. `'drop'` (the default)
   * fails closed: the message is not sent, and its callback gets a `PluginError` naming the
   * plugin; right for a scrubber, which must never let an unscrubbed message through.
   * `'continue'` sends the message as it stands (with whatever changes the plugin made before it
   * failed); the error still goes to `error` listeners and `stats().pluginErrors`.
   * @defaultValue 'drop'
   */
  readonly onError?: 'drop' | 'continue'
  /**
   * Called once per message. Change `message` in place and return nothing, return a replacement,
   * or return `null` to drop it (an outcome, not an error: its callback gets a `FilteredError`).
   * Returning a promise makes only this message wait for it (at most the client's
   * `pluginTimeout`); `flush()` and `closeAndFlush()` wait for it too, and while it waits it
   * counts toward `maxQueueSize` and `maxQueueBytes`. A returned object is read once (the client
   * takes a shallow copy and never writes into it, so it may be frozen); one that cannot be read
   * fails the plugin.
   */
  process(message: PluginMessage<E>, info: PluginInfo): PluginResult<E> | PromiseLike<PluginResult<E>>
}

/** A plugin as the client runs it: checked and frozen at construction. */
export interface PluginStep {
  readonly name: string
  readonly failsOpen: boolean
  readonly process: (message: Message, info: PluginInfo) => unknown
}

/** The plugins that see each message type, in order: built once, at construction. */
export type PluginChain = Readonly<Record<MessageType, readonly PluginStep[]>>
