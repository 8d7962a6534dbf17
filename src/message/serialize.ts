import { EventrailError, MessageTooLargeError } from '../core/errors'
import { MAX_MESSAGE_BYTES } from '../core/limits'
import { utf8ByteLength } from '../platform/runtime'
import type { Message } from '../core/types'
import { describeThrown } from '../core/describe'

/**
 * A message serialized once, at enqueue: its JSON text and the UTF-8 byte length of that text. A
 * line of an import sent as written keeps its own text as `json`, and the fields the client adds
 * in front of it as `head`: the message is then `head + json.slice(1)` (see {@link messageText}),
 * never joined into one string of its own (that would copy the line once more).
 */
export interface Serialized {
  readonly json: string
  readonly bytes: number
  /** Fields put in front of `json`'s own, from its opening `{` up to a comma: `{"messageId":"…",`. */
  readonly head?: string
}

/** The JSON text of a serialized message. */
export function messageText(serialized: Serialized): string {
  return serialized.head === undefined ? serialized.json : serialized.head + serialized.json.slice(1)
}

/** Bytes that `,"sentAt":"<24-char ISO date>"` adds to a single-message body such as `/v1/alias`. */
export const SENT_AT_FIELD_BYTES = ',"sentAt":"2000-01-01T00:00:00.000Z"'.length

/**
 * Serializes a normalized message once and counts its bytes. A message sent on its own (alias)
 * counts the `sentAt` field its body will carry. The message is the client's own copy (see
 * `snapshotMessage`): `JSON.stringify` runs none of the caller's code on it, and it is already known
 * to be within a small multiple of the limit.
 * @throws MessageTooLargeError when it is over 32 KB; EventrailError if the runtime fails to serialize it.
 */
export function serializeMessage(message: Message, isSentAlone: boolean): Serialized {
  let json: string
  try {
    json = JSON.stringify(message)
  } catch (err) {
    // The snapshot holds only what JSON can write: a throw here is the runtime's (out of memory, a
    // patched JSON), not the message's, and is not reported as a ValidationError.
    throw new EventrailError(`${message.type}: the message could not be serialized by the runtime (${describeThrown(err)})`, { cause: err })
  }
  const bytes = utf8ByteLength(json)
  const sentBytes = isSentAlone ? bytes + SENT_AT_FIELD_BYTES : bytes
  if (sentBytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(message.type, sentBytes, MAX_MESSAGE_BYTES)
  return { json, bytes }
}
