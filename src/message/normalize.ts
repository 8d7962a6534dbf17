import { LIBRARY_NAME, VERSION } from '../version'
import type { Message, MessageType } from '../types'

const LIBRARY = Object.freeze({ name: LIBRARY_NAME, version: VERSION })

// Shared by every message without a context of its own: it is only ever serialized, never mutated.
const LIBRARY_CONTEXT = Object.freeze({ library: LIBRARY })

const ID_FIELDS = ['userId', 'anonymousId', 'previousId', 'groupId'] as const

/**
 * Builds the message as it goes on the wire from a validated one: `type`, a `messageId` unless
 * the caller gave one, an ISO-8601 `timestamp` (the caller's, or now), `context.library` under the
 * caller's context, ids as strings. The caller's object is not changed.
 */
export function normalizeMessage(
  type: MessageType,
  message: Record<string, unknown>,
  nowIso: () => string,
  newMessageId: () => string,
): Message {
  const { timestamp, context, messageId } = message
  const normalized: Record<string, unknown> = {
    ...message,
    type,
    messageId: messageId == null ? newMessageId() : String(messageId),
    timestamp: timestamp == null ? nowIso() : timestamp instanceof Date ? timestamp.toISOString() : String(timestamp),
    context: context == null ? LIBRARY_CONTEXT : { library: LIBRARY, ...(context as object) },
  }
  for (const field of ID_FIELDS) {
    const value = normalized[field]
    if (value === null) delete normalized[field]
    else if (value !== undefined && typeof value !== 'string') normalized[field] = String(value)
  }
  return normalized as unknown as Message
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
