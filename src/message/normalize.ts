import { LIBRARY_NAME, VERSION } from '../version'
import { isBlankString } from './validate'
import type { Message, MessageType } from '../types'

const LIBRARY = Object.freeze({ name: LIBRARY_NAME, version: VERSION })

// Shared by every message without a context of its own: it is only ever serialized, never mutated.
const LIBRARY_CONTEXT = Object.freeze({ library: LIBRARY })

const ID_FIELDS = new Set(['userId', 'anonymousId', 'previousId', 'groupId'])

/**
 * Builds the message as it goes on the wire from a validated one: `type`, a `messageId` unless
 * the caller gave one, an ISO-8601 `timestamp` (the caller's, or now), `context.library` under the
 * caller's context, ids as strings, `undefined`, `null` and blank ids left out. Only the caller's own
 * enumerable fields are copied; functions (JSON has none) and `sentAt` (set on each request) are
 * left out. The caller's object is not changed.
 */
export function normalizeMessage(
  type: MessageType,
  message: Record<string, unknown>,
  nowIso: () => string,
  newMessageId: () => string,
): Message {
  // Validated: a non-empty messageId string, a Date or ISO-8601 timestamp, an object context.
  const { timestamp, context, messageId } = message as {
    timestamp?: Date | string | null
    context?: object | null
    messageId?: string | null
  }
  // Fixed leading keys, then the caller's own keys one by one: measured twice as fast as an
  // object spread, whose result JSON.stringify then serializes slowly.
  const normalized: Record<string, unknown> = {
    type,
    messageId: messageId == null ? newMessageId() : messageId,
    timestamp: timestamp == null ? nowIso() : timestamp instanceof Date ? timestamp.toISOString() : timestamp,
    context: context == null ? LIBRARY_CONTEXT : { library: LIBRARY, ...context },
  }
  const keys = Object.keys(message)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    if (key === 'type' || key === 'messageId' || key === 'timestamp' || key === 'context' || key === 'sentAt') continue
    let value = message[key]
    // JSON drops undefined and functions, except toJSON, which would replace the whole message.
    if (value === undefined || typeof value === 'function') continue
    if (ID_FIELDS.has(key)) {
      // Validation let an absent optional id through: null or blank is left out, not sent.
      if (value === null || isBlankString(value)) continue
      // Validated: a string (or String object, which JSON writes as its string) or a finite number.
      if (typeof value === 'number') value = String(value)
    }
    // An own "__proto__" key (from JSON.parse) stays data: plain assignment would set the prototype.
    if (key === '__proto__') Object.defineProperty(normalized, key, { value, enumerable: true, writable: true, configurable: true })
    else normalized[key] = value
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
