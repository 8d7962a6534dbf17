import { ValidationError } from '../core/errors'
import type { MessageType } from '../core/types'
import { describeValue } from '../core/describe'

// The positional calls of other SDKs (analytics.js, the mobile SDKs), by the kind of the second
// argument, and the one message object that says the same here.
const POSITIONAL: Readonly<Record<MessageType, { readonly object: string; readonly string?: string; readonly fix: string }>> = {
  identify: { object: 'identify(userId, traits)', fix: 'identify({ userId, traits })' },
  track: { object: 'track(event, properties)', string: 'track(userId, event, properties)', fix: 'track({ userId, event, properties })' },
  page: {
    object: 'page(name, properties)',
    string: 'page(category, name, properties)',
    fix: 'page({ userId, category, name, properties })',
  },
  screen: { object: 'screen(name, properties)', string: 'screen(category, name, properties)', fix: 'screen({ userId, name, properties })' },
  group: { object: 'group(groupId, traits)', fix: 'group({ userId, groupId, traits })' },
  alias: { object: 'alias(userId, previousId)', string: 'alias(userId, previousId)', fix: 'alias({ userId, previousId })' },
}

/**
 * The error for a second argument that is not a function. After an id or a name (a string or a
 * number), the call is most likely another SDK's positional style (`identify('u1', { email })`):
 * the error says so and shows the message object to write instead of blaming the callback.
 */
export function callbackError(type: MessageType, message: unknown, callback: unknown): ValidationError {
  const style = POSITIONAL[type]
  const first = typeof message
  const second = typeof callback === 'string' ? style.string : typeof callback === 'object' && callback !== null ? style.object : undefined
  if ((first === 'string' || first === 'number') && second !== undefined) {
    return new ValidationError(
      'message',
      `must be one object, not separate arguments: got ${describeValue(message)} then ${describeValue(callback)}, like ${second} in other SDKs; write ${style.fix}`,
      type,
    )
  }
  return new ValidationError('callback', `must be a function, got ${describeValue(callback)}`, type)
}
