import { EventrailError, MessageTooLargeError, ValidationError } from '../core/errors'
import { MAX_MESSAGE_BYTES } from '../core/limits'
import { describeThrown, describeValue } from '../core/describe'
import { hasEnumerableFields } from '../message/json-copy'
import { idValue } from '../message/normalize'
import { serializeMessage, type Serialized } from '../message/serialize'
import type { Snapshot } from '../message/snapshot'
import { isBlankString, validateMessage } from '../message/validate'
import type { Message, MessageType } from '../core/types'

/**
 * Checks the message the plugins left, as any call's message is checked, and serializes it: the
 * type is the method's, an identity is present (`event` for a track), `messageId` and `timestamp`
 * are non-empty strings, `context` is an object, ids go out as strings, and the serialized message
 * is within 32 KB. The error names the plugins (`track after plugins ("a", "b"): …`), so that it
 * points at them; its text is made only when there is one. Nothing is written into `message` (a
 * plugin may have frozen it): an id sent otherwise than it stands is set on a shallow copy.
 * @param clientTimestamp - the timestamp normalization set: unchanged, it is not parsed again.
 * @throws ValidationError (or MessageTooLargeError) naming the field and the rule.
 */
export function checkAndSerialize(
  type: MessageType,
  message: Message,
  plugins: readonly { readonly name: string }[],
  clientTimestamp: string,
): Serialized {
  try {
    return serializeMessage(check(type, message, clientTimestamp), type === 'alias')
  } catch (err) {
    throw blamePlugins(err, `${type} after plugins (${plugins.map((p) => `"${p.name}"`).join(', ')})`)
  }
}

function check(type: MessageType, result: Message, clientTimestamp: string): Message {
  // A field the result lacks (a scrubbing plugin's deleted userId) must not be answered by a
  // polluted Object.prototype: read through a copy without a prototype, then.
  const message = hasEnumerableFields(Object.prototype) ? (Object.assign(Object.create(null), result) as Message) : result
  if (message.type !== type) throw new ValidationError('type', `must stay "${type}" (got ${describeValue(message.type)})`)
  validateMessage(type, message as unknown as Snapshot, message.timestamp !== clientTimestamp)
  if (typeof message.messageId !== 'string' || message.messageId === '')
    throw new ValidationError('messageId', 'must be a non-empty string')
  if (typeof message.timestamp !== 'string' || message.timestamp === '') {
    throw new ValidationError('timestamp', 'must be an ISO-8601 date-time string')
  }
  const context = message.context as unknown
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    throw new ValidationError('context', `must be an object (got ${describeValue(context)})`)
  }
  // Each id by name, not in a loop over their names (a keyed read by a varying name is slow).
  const { userId, anonymousId, previousId, groupId } = message
  if (isSentAsIs(userId) && isSentAsIs(anonymousId) && isSentAsIs(previousId) && isSentAsIs(groupId)) return message
  const copy = { ...message }
  if (userId !== undefined) copy.userId = idValue(userId) as string | undefined
  if (anonymousId !== undefined) copy.anonymousId = idValue(anonymousId) as string | undefined
  if (previousId !== undefined) copy.previousId = idValue(previousId)
  if (groupId !== undefined) copy.groupId = idValue(groupId)
  return copy
}

// An id that goes out as it stands: absent, or a non-blank string.
function isSentAsIs(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && !isBlankString(value))
}

// The same rule broken, said of the plugins' result. A serialization failure (a cycle, a BigInt a
// plugin put in) is the message's fault here, not the runtime's.
function blamePlugins(err: unknown, where: string): unknown {
  if (err instanceof MessageTooLargeError) return new MessageTooLargeError(where, err.bytes, MAX_MESSAGE_BYTES, err.isLowerBound)
  if (err instanceof ValidationError) return new ValidationError(err.field, err.rule, where)
  const cause = err instanceof EventrailError && err.cause !== undefined ? err.cause : err
  return new ValidationError('message', `must be serializable as JSON (${describeThrown(cause)})`, where, { cause })
}
