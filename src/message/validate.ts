import isString from 'lodash.isstring'
import { ValidationError } from '../errors'
import type { MessageType } from '../types'

// ISO-8601 calendar date, optionally with a time and an offset; the values are checked after.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/

const OBJECT_FIELDS = ['traits', 'properties', 'context', 'integrations'] as const

// eslint-disable-next-line @typescript-eslint/unbound-method -- only ever used with .call()
const isEnumerableOwn = Object.prototype.propertyIsEnumerable

// Only own enumerable fields count, as only they are sent: an inherited or hidden `userId` must
// not pass validation and then be missing on the wire.
function field(message: Record<string, unknown>, name: string): unknown {
  return isEnumerableOwn.call(message, name) ? message[name] : undefined
}

/**
 * Checks a message against the rules of the spec for its type, before anything is queued.
 * @throws ValidationError naming the field and the rule.
 */
export function validateMessage(type: MessageType, message: unknown): asserts message is Record<string, unknown> {
  if (!isObject(message)) throw new ValidationError('message', 'must be an object', type)
  if (type === 'alias') {
    if (!isId(field(message, 'userId'))) throw idError(type, 'userId')
    if (!isId(field(message, 'previousId'))) throw idError(type, 'previousId')
    checkOptionalId(type, message, 'anonymousId')
    checkOptionalId(type, message, 'groupId')
  } else {
    const hasUser = checkOptionalId(type, message, 'userId')
    const hasAnonymous = checkOptionalId(type, message, 'anonymousId')
    if (!hasUser && !hasAnonymous) {
      throw new ValidationError('userId', 'or "anonymousId" is required (a non-empty string or a number)', type)
    }
    if (type === 'group') {
      if (!isId(field(message, 'groupId'))) throw idError(type, 'groupId')
    } else checkOptionalId(type, message, 'groupId')
    checkOptionalId(type, message, 'previousId')
  }
  if (type === 'track' && !isNonEmptyString(field(message, 'event'))) {
    throw new ValidationError('event', 'is required and must be a non-empty string', type)
  }
  if (type === 'page' || type === 'screen') {
    checkOptionalString(type, message, 'name')
    checkOptionalString(type, message, 'category')
  }
  for (const name of OBJECT_FIELDS) {
    const value = field(message, name)
    if (value == null) continue
    if (!isObject(value)) throw new ValidationError(name, 'must be an object', type)
    // JSON.stringify would send whatever toJSON returns, which need not be an object.
    if (typeof value.toJSON === 'function') {
      throw new ValidationError(name, 'must be a plain object (it has a toJSON method)', type)
    }
  }
  const integrations = field(message, 'integrations')
  if (integrations != null) checkIntegrations(type, integrations as Record<string, unknown>)
  const timestamp = field(message, 'timestamp')
  if (timestamp != null && !isValidTimestamp(timestamp)) {
    throw new ValidationError('timestamp', 'must be a valid Date or an ISO-8601 date-time string', type)
  }
  const messageId = field(message, 'messageId')
  if (messageId != null && !isNonEmptyString(messageId)) {
    throw new ValidationError('messageId', 'must be a non-empty string', type)
  }
}

/** A plain data object: not null, not an array, not a Date, Map or Set. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof Map) &&
    !(value instanceof Set)
  )
}

/** A usable identifier: a non-empty string, or a finite number. */
export function isId(value: unknown): boolean {
  return isNonEmptyString(value) || (typeof value === 'number' && Number.isFinite(value))
}

/** A Date that holds a time, or an ISO-8601 string that names a real time (no February 30th). */
export function isValidTimestamp(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime())
  if (typeof value !== 'string') return false
  const match = ISO_8601.exec(value)
  if (match === null || Number.isNaN(Date.parse(value))) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** A string (or String object) of nothing but white space. */
export function isBlankString(value: unknown): boolean {
  return isString(value) && String(value).trim() === ''
}

function isNonEmptyString(value: unknown): boolean {
  return isString(value) && String(value).trim() !== ''
}

function idError(type: MessageType, name: string): ValidationError {
  return new ValidationError(name, 'is required and must be a non-empty string or a number', type)
}

// An optional id that is null, undefined or a blank string is absent (and left out of the message
// by normalizeMessage): `{ userId: 'u1', anonymousId: '' }` meets the identity rule, as the service
// sees it, instead of losing the event. A required id must be a non-empty string or a number.
function checkOptionalId(type: MessageType, message: Record<string, unknown>, name: string): boolean {
  const value = field(message, name)
  if (value == null || isBlankString(value)) return false
  if (!isId(value)) throw new ValidationError(name, 'must be a non-empty string or a finite number', type)
  return true
}

function checkOptionalString(type: MessageType, message: Record<string, unknown>, name: string): void {
  const value = field(message, name)
  if (value != null && !isString(value)) throw new ValidationError(name, 'must be a string', type)
}

function checkIntegrations(type: MessageType, integrations: Record<string, unknown>): void {
  for (const key of Object.keys(integrations)) {
    const value = integrations[key]
    if (typeof value !== 'boolean' && !isObject(value)) {
      throw new ValidationError(`integrations.${key}`, 'must be true, false or an options object', type)
    }
  }
}
