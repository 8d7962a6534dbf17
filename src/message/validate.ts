import isString from 'lodash.isstring'
import { ValidationError } from '../errors'
import type { MessageType } from '../types'

// ISO-8601 calendar date, optionally with a time and an offset; Date.parse then checks the values.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/

const OBJECT_FIELDS = ['traits', 'properties', 'context', 'integrations'] as const

/**
 * Checks a message against the rules of the spec for its type, before anything is queued.
 * @throws ValidationError naming the field and the rule.
 */
export function validateMessage(type: MessageType, message: unknown): asserts message is Record<string, unknown> {
  if (!isObject(message)) throw new ValidationError('message', 'must be an object', type)
  if (type === 'alias') {
    if (!isId(message.userId)) throw idError(type, 'userId')
    if (!isId(message.previousId)) throw idError(type, 'previousId')
  } else {
    const hasUser = checkOptionalId(type, message, 'userId')
    const hasAnonymous = checkOptionalId(type, message, 'anonymousId')
    if (!hasUser && !hasAnonymous) {
      throw new ValidationError('userId', 'or "anonymousId" is required (a non-empty string or a number)', type)
    }
  }
  if (type === 'track' && !isNonEmptyString(message.event)) {
    throw new ValidationError('event', 'is required and must be a non-empty string', type)
  }
  if (type === 'group' && !isId(message.groupId)) throw idError(type, 'groupId')
  if (type === 'page' || type === 'screen') {
    checkOptionalString(type, message, 'name')
    checkOptionalString(type, message, 'category')
  }
  for (const field of OBJECT_FIELDS) {
    const value = message[field]
    if (value != null && !isObject(value)) throw new ValidationError(field, 'must be an object', type)
  }
  if (message.integrations != null) checkIntegrations(type, message.integrations as Record<string, unknown>)
  if (message.timestamp != null && !isValidTimestamp(message.timestamp)) {
    throw new ValidationError('timestamp', 'must be a valid Date or an ISO-8601 date-time string', type)
  }
  if (message.messageId != null && !isNonEmptyString(message.messageId)) {
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

/** A Date that holds a time, or an ISO-8601 string that names a real time. */
export function isValidTimestamp(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime())
  return typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value))
}

function isNonEmptyString(value: unknown): boolean {
  return isString(value) && String(value).trim() !== ''
}

function idError(type: MessageType, field: string): ValidationError {
  return new ValidationError(field, 'is required and must be a non-empty string or a number', type)
}

function checkOptionalId(type: MessageType, message: Record<string, unknown>, field: string): boolean {
  const value = message[field]
  if (value == null) return false
  if (!isId(value)) throw new ValidationError(field, 'must be a non-empty string or a finite number', type)
  return true
}

function checkOptionalString(type: MessageType, message: Record<string, unknown>, field: string): void {
  const value = message[field]
  if (value != null && !isString(value)) throw new ValidationError(field, 'must be a string', type)
}

function checkIntegrations(type: MessageType, integrations: Record<string, unknown>): void {
  for (const key of Object.keys(integrations)) {
    const value = integrations[key]
    if (typeof value !== 'boolean' && !isObject(value)) {
      throw new ValidationError(`integrations.${key}`, 'must be true, false or an options object', type)
    }
  }
}
