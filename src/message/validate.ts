import { ValidationError } from '../core/errors'
import type { MessageType } from '../core/types'
import { describeValue } from '../core/describe'
import type { Snapshot } from './snapshot'

// ISO-8601 calendar date, optionally with a time and an offset; the values are checked after.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/

/**
 * Checks a message, as read once by `snapshotMessage`, against the rules of the spec for its type,
 * before anything is queued. `properties`, `traits`, `context` and `integrations` are already
 * known to be objects (or absent). `checksTimestamp: false` skips the timestamp (the plugins' final
 * check: a timestamp the client set is known to be valid).
 * @throws ValidationError naming the field and the rule.
 */
export function validateMessage(type: MessageType, message: Snapshot, checksTimestamp = true): void {
  if (type === 'alias') {
    if (!isId(message.userId)) throw idError(type, 'userId', message.userId)
    if (!isId(message.previousId)) throw idError(type, 'previousId', message.previousId)
    checkOptionalId(type, message.anonymousId, 'anonymousId')
    checkOptionalId(type, message.groupId, 'groupId')
  } else {
    const hasUser = checkOptionalId(type, message.userId, 'userId')
    const hasAnonymous = checkOptionalId(type, message.anonymousId, 'anonymousId')
    if (!hasUser && !hasAnonymous) {
      throw new ValidationError('userId', 'or "anonymousId" is required (a non-empty string or a number)', type)
    }
    if (type === 'group') {
      if (!isId(message.groupId)) throw idError(type, 'groupId', message.groupId)
    } else checkOptionalId(type, message.groupId, 'groupId')
    checkOptionalId(type, message.previousId, 'previousId')
  }
  if (type === 'track' && !isNonEmptyString(message.event)) {
    throw new ValidationError('event', `is required and must be a non-empty string${got(message.event)}`, type)
  }
  if (type === 'page' || type === 'screen') {
    checkOptionalString(type, message.name, 'name')
    checkOptionalString(type, message.category, 'category')
  }
  if (message.integrations != null) checkIntegrations(type, message.integrations as Record<string, unknown>)
  const timestamp = message.timestamp
  if (checksTimestamp && timestamp != null && !isValidTimestamp(timestamp)) {
    const rule =
      timestamp instanceof Date && !Number.isNaN(timestamp.getTime())
        ? `must be a Date between the years 0000 and 9999 (got the year ${timestamp.getUTCFullYear()}, which the service drops)`
        : `must be a valid Date or an ISO-8601 date-time string${timestamp instanceof Date ? '' : got(timestamp)}`
    throw new ValidationError('timestamp', rule, type)
  }
  const messageId = message.messageId
  if (messageId != null && !isNonEmptyString(messageId)) {
    throw new ValidationError('messageId', `must be a non-empty string${got(messageId)}`, type)
  }
}

/** A usable identifier: a non-empty string, or a finite number. */
export function isId(value: unknown): boolean {
  return isNonEmptyString(value) || (typeof value === 'number' && Number.isFinite(value))
}

/**
 * A Date that holds a time in the years 0000 to 9999 (ISO-8601's four-digit years: outside them
 * `toISOString()` writes an extended year such as `+057270-…`, which the service drops), or an
 * ISO-8601 string that names a real time (no February 30th).
 */
export function isValidTimestamp(value: unknown): boolean {
  if (value instanceof Date) {
    const year = value.getUTCFullYear()
    return year >= 0 && year <= 9999
  }
  return isIsoDateString(value)
}

/** Whether `value` is an ISO-8601 date-time string that names a real time (no February 30th). */
export function isIsoDateString(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const match = ISO_8601.exec(value)
  if (match === null || Number.isNaN(Date.parse(value))) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** A string of nothing but white space. */
export function isBlankString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === ''
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== ''
}

function idError(type: MessageType, name: string, value: unknown): ValidationError {
  return new ValidationError(name, `is required and must be a non-empty string or a number${got(value)}`, type)
}

// What a field of the wrong type held, for the error: ` (got a Date)`. Nothing for an absent
// field or a string (blank: the rule says why), as the rule alone says what is wrong then.
function got(value: unknown): string {
  if (value == null || typeof value === 'string') return ''
  return ` (got ${typeof value === 'number' ? String(value) : describeValue(value)})`
}

// An optional id that is null, undefined or a blank string is absent (and left out of the message
// by normalizeMessage): `{ userId: 'u1', anonymousId: '' }` meets the identity rule, as the service
// sees it, instead of losing the event. A required id must be a non-empty string or a number.
function checkOptionalId(type: MessageType, value: unknown, name: string): boolean {
  if (value == null || isBlankString(value)) return false
  if (!isId(value)) throw new ValidationError(name, `must be a non-empty string or a finite number${got(value)}`, type)
  return true
}

function checkOptionalString(type: MessageType, value: unknown, name: string): void {
  if (value != null && typeof value !== 'string') throw new ValidationError(name, `must be a string${got(value)}`, type)
}

// Every value is a boolean (the wire spec's rule), except that a destination may take an options
// object (the service's practice, which the Integrations type and the collector allow). `All` and
// `__proto__` (an own key that JSON.parse makes, and that would set the prototype of an object
// built from it by a receiver) are not destinations: booleans only. `integrations` is the client's
// own copy here: its values are plain data.
function checkIntegrations(type: MessageType, integrations: Record<string, unknown>): void {
  for (const key of Object.keys(integrations)) {
    const value = integrations[key]
    // The wire spec: values are booleans (true enables, false disables), whatever the key.
    if (typeof value === 'boolean') continue
    throw new ValidationError(`integrations.${key}`, `must be true or false (got ${describeValue(value)})`, type)
  }
}
