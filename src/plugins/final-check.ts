import { EventrailError, MessageTooLargeError, ValidationError } from '../errors'
import { MAX_MESSAGE_BYTES } from '../limits'
import { isBlankString, validateMessage } from '../message/validate'
import { serializeMessage, type Serialized } from '../message/serialize'
import type { Snapshot } from '../message/snapshot'
import type { Message, MessageType } from '../types'
import { describeThrown, describeValue } from '../message/describe'

/**
 * Checks the message the plugins left, as any call's message is checked, and serializes it: the
 * type is the method's, an identity is present (`event` for a track), `messageId` and `timestamp`
 * are non-empty strings, `context` is an object, ids go out as strings, and the serialized message
 * is within 32 KB. `where` names the plugins, so that the error points at them.
 * @throws ValidationError (or MessageTooLargeError) naming the field and the rule.
 */
export function checkAndSerialize(type: MessageType, message: Message, where: string): Serialized {
  if (message.type !== type) {
    throw new ValidationError('type', `must stay "${type}" (got ${describeValue(message.type)})`, where)
  }
  try {
    validateMessage(type, message as unknown as Snapshot)
  } catch (err) {
    throw err instanceof ValidationError ? new ValidationError(err.field, err.rule, where) : err
  }
  if (typeof message.messageId !== 'string' || message.messageId === '') {
    throw new ValidationError('messageId', 'must be a non-empty string', where)
  }
  if (typeof message.timestamp !== 'string' || message.timestamp === '') {
    throw new ValidationError('timestamp', 'must be an ISO-8601 date-time string', where)
  }
  const context = message.context as unknown
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    throw new ValidationError('context', `must be an object (got ${describeValue(context)})`, where)
  }
  const record = message as Record<string, unknown>
  for (const field of ['userId', 'anonymousId', 'previousId', 'groupId'] as const) {
    const value = record[field]
    if (value === null || isBlankString(value)) delete record[field]
    else if (typeof value === 'number') record[field] = String(value)
  }
  try {
    return serializeMessage(message, type === 'alias')
  } catch (err) {
    if (err instanceof MessageTooLargeError) throw new MessageTooLargeError(where, err.bytes, MAX_MESSAGE_BYTES, err.isLowerBound)
    // A cycle or a BigInt a plugin put in: the message's fault, not the runtime's.
    const cause = err instanceof EventrailError && err.cause !== undefined ? err.cause : err
    throw new ValidationError('message', `must be serializable as JSON (${describeThrown(cause)})`, where, { cause })
  }
}
