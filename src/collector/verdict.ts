import { MESSAGE_TYPES } from '../core/limits'
import { isIsoDateString } from '../message/validate'
import type { DropCode } from './types'

/** The kinds of message a batch may carry (wire spec: not alias). */
export const BATCH_TYPES = Object.freeze(['identify', 'group', 'track', 'page', 'screen'] as const)

/** The kinds of message, one endpoint each. */
export { MESSAGE_TYPES }

/** One kind of message of the wire interface. */
export type MessageKind = (typeof MESSAGE_TYPES)[number]

/** Why a message is dropped: a stable code and the rule in words. */
export interface Drop {
  readonly code: DropCode
  readonly reason: string
}

// Optional fields that the wire spec types as Object, per kind; `context` and `integrations` are common.
const OBJECT_FIELDS: Readonly<Record<MessageKind, readonly string[]>> = {
  identify: ['traits'],
  track: ['properties'],
  page: ['properties'],
  screen: ['properties'],
  group: ['traits'],
  alias: [],
}

/** Whether `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Whether `value` is an ISO-8601 date-time string that names a real time (the client's own rule). */
export function isIsoDate(value: unknown): value is string {
  return isIsoDateString(value)
}

/** "a string", "an array", "null", …: what a JSON value is, for reasons. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  return type === 'object' ? 'an object' : type === 'undefined' ? 'nothing' : `a ${type}`
}

/**
 * The verdict of the service on one message of kind `type`, as its source debugger shows it:
 * `undefined` when the message is accepted, else the rule it breaks. Pure: request-level rules
 * (write key, `Content-Type`, batch `type`) are checked by the caller.
 */
export function judgeMessage(type: MessageKind, message: unknown): Drop | undefined {
  if (!isJsonObject(message)) {
    return drop('not_an_object', `${type}: the message must be a JSON object (got ${describeJson(message)})`)
  }
  return type === 'alias'
    ? (judgeAlias(message) ?? judgeCommon(type, message))
    : (judgeIdentified(type, message) ?? judgeCommon(type, message))
}

function judgeAlias(message: Record<string, unknown>): Drop | undefined {
  return (
    requiredString('alias', message, 'previousId', 'missing_previous_id') ?? requiredString('alias', message, 'userId', 'missing_user_id')
  )
}

function judgeIdentified(type: MessageKind, message: Record<string, unknown>): Drop | undefined {
  const wrongId = optionalString(type, message, 'userId') ?? optionalString(type, message, 'anonymousId')
  if (wrongId !== undefined) return wrongId
  if (!isPresentString(message.userId) && !isPresentString(message.anonymousId)) {
    return drop('missing_identity', `${type}: "userId" or "anonymousId" is required (a non-empty string)`)
  }
  if (type === 'track') return requiredString(type, message, 'event', 'missing_event')
  if (type === 'group') return requiredString(type, message, 'groupId', 'missing_group_id')
  if (type === 'page' || type === 'screen') return optionalString(type, message, 'name')
  return undefined
}

function judgeCommon(type: MessageKind, message: Record<string, unknown>): Drop | undefined {
  for (const field of [...OBJECT_FIELDS[type], 'context', 'integrations']) {
    const value = message[field]
    if (value != null && !isJsonObject(value)) {
      return drop('wrong_field_type', `${type}: "${field}" must be an object (got ${describeJson(value)})`)
    }
  }
  const integrations = message.integrations
  if (isJsonObject(integrations)) {
    for (const [name, value] of Object.entries(integrations)) {
      if (typeof value !== 'boolean' && !isJsonObject(value)) {
        return drop(
          'wrong_field_type',
          `${type}: "integrations.${name}" must be true, false or an options object (got ${describeJson(value)})`,
        )
      }
    }
  }
  if (message.timestamp != null && !isIsoDate(message.timestamp)) {
    return drop('wrong_field_type', `${type}: "timestamp" must be an ISO-8601 date-time string (got ${JSON.stringify(message.timestamp)})`)
  }
  return undefined
}

function requiredString(type: MessageKind, message: Record<string, unknown>, field: string, code: DropCode): Drop | undefined {
  const wrongType = optionalString(type, message, field)
  if (wrongType !== undefined) return wrongType
  return isPresentString(message[field]) ? undefined : drop(code, `${type}: "${field}" is required (a non-empty string)`)
}

function optionalString(type: MessageKind, message: Record<string, unknown>, field: string): Drop | undefined {
  const value = message[field]
  if (value == null || typeof value === 'string') return undefined
  return drop('wrong_field_type', `${type}: "${field}" must be a string (got ${describeJson(value)})`)
}

function isPresentString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== ''
}

function drop(code: DropCode, reason: string): Drop {
  return { code, reason }
}
