import type { MessageType } from '../core/types'
import { newMessageId } from './message-id'
import { normalizeMessage } from './normalize'
import { serializeMessage, type Serialized } from './serialize'
import { snapshotMessage } from './snapshot'
import { validateMessage } from './validate'

/** Reads, validates and serializes one message for the queue. @throws what the message breaks. */
export type PrepareMessage<T> = (type: MessageType, message: T, nowIso: () => string) => Serialized

/**
 * A call's message: read once into the client's own copy, validated, normalized and serialized.
 * @throws ValidationError naming the field and the rule; MessageTooLargeError over 32 KB.
 */
export const prepareCall: PrepareMessage<unknown> = (type, message, nowIso) => {
  const snapshot = snapshotMessage(type, message)
  validateMessage(type, snapshot)
  return serializeMessage(normalizeMessage(type, snapshot, nowIso, newMessageId), type === 'alias')
}

/**
 * A line of JSON text and what `JSON.parse` made of it: the import's messages, prepared by
 * `prepareParsedLine` (message/prepare-line.ts, loaded with the import only).
 */
export interface ParsedLine {
  /** The line, as read. */
  readonly text: string
  /**
   * `JSON.parse(text)`: its `messageId` is the text's own, or `addedId` when there is one (and the
   * text has no `messageId` field).
   */
  readonly value: Record<string, unknown>
  /** The message id given to a line that had no `messageId` field at all. */
  readonly addedId?: string
  /** UTF-8 bytes of `text`, when the reader knows them (it read the bytes): not counted again. */
  readonly bytes?: number
}
