import { LIBRARY_NAME, VERSION } from '../core/version'
import { isBlankString } from './validate'
import type { Message, MessageType } from '../core/types'
import type { Snapshot } from './snapshot'

const LIBRARY = Object.freeze({ name: LIBRARY_NAME, version: VERSION })

// Shared by every message without a context of its own: it is only ever serialized, never mutated.
const LIBRARY_CONTEXT = Object.freeze({ library: LIBRARY })

/** The `context` of a message that has none of its own, as JSON text. */
export const LIBRARY_CONTEXT_JSON = JSON.stringify(LIBRARY_CONTEXT)

/**
 * Turns a validated snapshot into the message as it goes on the wire, in place (the snapshot is
 * the client's own object): `type`, a `messageId` unless the caller gave one, an ISO-8601
 * `timestamp` (the caller's, or now), `context.library` under the caller's context, ids as
 * strings, and blank or null optional ids left out. The snapshot already holds only what JSON
 * writes; `sentAt` (set on each request) was never copied into it.
 */
export function normalizeMessage(type: MessageType, message: Snapshot, nowIso: () => string, newMessageId: () => string): Message {
  // Validated: a non-empty messageId string, a Date (years 0000-9999) or ISO-8601 timestamp, an object context.
  const { timestamp, context, messageId } = message as {
    timestamp?: Date | string | null
    context?: object | null
    messageId?: string | null
  }
  message.type = type
  message.messageId = messageId == null ? newMessageId() : messageId
  message.timestamp = timestamp == null ? nowIso() : timestamp instanceof Date ? timestamp.toISOString() : timestamp
  message.context = context == null ? LIBRARY_CONTEXT : { library: LIBRARY, ...context }
  message.userId = idValue(message.userId)
  message.anonymousId = idValue(message.anonymousId)
  message.previousId = idValue(message.previousId)
  message.groupId = idValue(message.groupId)
  return message as unknown as Message
}

/**
 * An id as it is sent: validation let an absent optional id through, so null or blank is left out
 * (undefined), a number is sent as its string, anything else as it is.
 */
export function idValue(value: unknown): unknown {
  if (value === null || isBlankString(value)) return undefined
  return typeof value === 'number' ? String(value) : value
}

/**
 * A clock that formats the current time as ISO-8601, formatting each millisecond once: busy
 * servers make many calls per millisecond. Reads `Date.now()` at every call (fake timers work).
 */
export function createIsoClock(): () => string {
  let lastMs = NaN
  let lastIso = ''
  return () => {
    const ms = Date.now()
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = new Date(ms).toISOString()
    }
    return lastIso
  }
}
