import { ownField } from '../core/own-options'
import type { Id, Message, MessageType } from '../core/types'

/**
 * Which recorded messages to select. Every field given must match; ids match whether they were
 * given as numbers or strings (the wire carries strings).
 */
export interface MessageFilter {
  /** The message type: `'track'`, `'identify'`, … */
  type?: MessageType
  /** The event name of a track message. */
  event?: string
  userId?: Id
  anonymousId?: Id
  groupId?: Id
  /** The name of a page or screen. */
  name?: string
}

/** A filter object, or a predicate over the wire message. */
export type MessageQuery = MessageFilter | ((message: Message) => boolean)

const FILTER_KEYS = ['type', 'event', 'userId', 'anonymousId', 'groupId', 'name'] as const

/** Whether `message` is selected by `query`. */
export function matchesQuery(message: Message, query: MessageQuery): boolean {
  if (typeof query === 'function') return query(message)
  // Own fields only, of the filter and of the message: a polluted Object.prototype selects nothing.
  for (const key of FILTER_KEYS) {
    const wanted = ownField(query, key) as MessageFilter[typeof key]
    if (wanted !== undefined && ownField(message, key) !== String(wanted)) return false
  }
  return true
}
