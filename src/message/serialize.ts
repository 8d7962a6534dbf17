import { MessageTooLargeError, ValidationError } from '../errors'
import { MAX_MESSAGE_BYTES } from '../limits'
import { utf8ByteLength } from '../runtime'
import type { Message } from '../types'

/** A message serialized once, at enqueue: its JSON text and the UTF-8 byte length of that text. */
export interface Serialized {
  readonly json: string
  readonly bytes: number
}

/** Bytes that `,"sentAt":"<24-char ISO date>"` adds to a single-message body such as `/v1/alias`. */
export const SENT_AT_FIELD_BYTES = ',"sentAt":"2000-01-01T00:00:00.000Z"'.length

/**
 * Serializes a normalized message once and counts its bytes. A message sent on its own (alias)
 * counts the `sentAt` field its body will carry.
 * @throws ValidationError when JSON cannot represent it (circular, BigInt, too deep) and
 * MessageTooLargeError when it is over 32 KB.
 */
export function serializeMessage(message: Message, isSentAlone: boolean): Serialized {
  let json: string
  try {
    json = JSON.stringify(message)
  } catch (err) {
    throw unserializable(message, err)
  }
  const bytes = utf8ByteLength(json)
  const sentBytes = isSentAlone ? bytes + SENT_AT_FIELD_BYTES : bytes
  if (sentBytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(message.type, sentBytes, MAX_MESSAGE_BYTES)
  return { json, bytes }
}

function unserializable(message: Message, err: unknown): ValidationError {
  const field = Object.keys(message).find((key) => !canStringify(message[key])) ?? 'message'
  return new ValidationError(field, describe(err), message.type, { cause: err })
}

function canStringify(value: unknown): boolean {
  try {
    JSON.stringify(value)
    return true
  } catch {
    return false
  }
}

function describe(err: unknown): string {
  if (err instanceof RangeError) return 'is nested too deeply to be serialized as JSON'
  const text = err instanceof Error ? err.message : String(err)
  if (/circular/i.test(text)) return 'contains a circular reference, which JSON cannot represent'
  if (/bigint/i.test(text)) return 'contains a BigInt, which JSON cannot represent'
  return `cannot be serialized as JSON (${text})`
}
