import { MAX_MESSAGE_BYTES, MESSAGE_TYPES } from '../../core/limits'

/**
 * What is wrong with a record read back from the disk, or undefined when it may join a request.
 * A record's checksum says its bytes are the ones written, not that a client wrote them: its text
 * is put into a request body as it is, so it must be one JSON object, a message of the kind it is
 * filed under, with a `messageId`, and no larger than a message may be. Anything else (a `{`
 * alone, a text that closes the batch and opens another) would break or rewrite its neighbours.
 */
export function recordProblem(text: string, isAlias: boolean, bytes: number): string | undefined {
  if (bytes > MAX_MESSAGE_BYTES) return `is ${bytes} bytes, over the limit of ${MAX_MESSAGE_BYTES} for a message`
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'is not one JSON value'
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object'
  const { type, messageId } = value as Record<string, unknown>
  if (typeof type !== 'string' || !(MESSAGE_TYPES as readonly string[]).includes(type)) return 'has no message type'
  if ((type === 'alias') !== isAlias) return `is a ${type} message filed as ${isAlias ? 'an alias' : 'a batch message'}`
  if (typeof messageId !== 'string' || messageId === '') return 'has no messageId'
  return undefined
}
