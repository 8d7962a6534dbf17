import { ValidationError } from '../core/errors'
import { MESSAGE_TYPES as ALL_MESSAGE_TYPES } from '../core/limits'
import type { ParsedLine } from '../message/prepare'
import { ownField } from '../core/own-options'
import type { MessageType } from '../core/types'
import type { LineIdHasher } from './message-id'

const MESSAGE_TYPES: ReadonlySet<string> = new Set(ALL_MESSAGE_TYPES)

/** An item read as a message: its type and fields, or why it cannot be one. */
export type DecodedItem =
  | {
      readonly type: MessageType
      readonly message: Record<string, unknown>
      /** A line of text that is the message itself (not a record): its text, for the client to send as written. */
      readonly line?: ParsedLine
      readonly error?: undefined
      readonly skip?: undefined
    }
  | {
      readonly type?: MessageType
      readonly message?: undefined
      readonly line?: undefined
      readonly error: ValidationError
      readonly skip?: undefined
    }
  /** A record of `eventrail dev --out` that the filter leaves out: nothing to send. */
  | { readonly skip: true; readonly type?: undefined; readonly message?: undefined; readonly line?: undefined; readonly error?: undefined }

/** Which records of `eventrail dev --out` to import (`eventrail import --verdict`). */
export interface RecordFilter {
  /** Whether a record with this verdict is imported. */
  keep(verdict: string): boolean
  /** Refuse an item that is not such a record. */
  readonly only: boolean
}

/** How items are read: how one without a `messageId` gets one, and which records are imported. */
export interface IdPolicy {
  /** Lines of text: a hash of the line and its position. */
  readonly hashLine: LineIdHasher
  /** The caller's own rule, when given: it comes first. */
  readonly custom?: (message: Readonly<Record<string, unknown>>, position: number) => string | undefined
  /** Records of `eventrail dev --out`: which to import. Default: all, and any other item. */
  readonly records?: RecordFilter
}

/**
 * Reads one item of an import as a message: a line of JSON text (a Buffer or a string) is parsed;
 * a record of `eventrail dev --out` (it has `verdict`, `receivedAt` and the received `message`)
 * stands for its message; the `type` field must name one of the six kinds. A message without a
 * `messageId` gets one from `ids`. The message's own fields are checked later, by the client itself.
 * `textBytes`: the UTF-8 length of a string source, when the caller knows it.
 */
export function decodeItem(
  source: Uint8Array | string | Record<string, unknown>,
  position: number,
  ids: IdPolicy,
  textBytes?: number,
): DecodedItem {
  const text = typeof source === 'string' ? source : source instanceof Uint8Array ? utf8(source) : undefined
  const isText = text !== undefined
  let value: unknown = source
  if (isText) {
    try {
      value = JSON.parse(text)
    } catch (err) {
      return { error: new ValidationError('line', `is not valid JSON (${err instanceof Error ? err.message : String(err)})`, 'import') }
    }
  }
  if (!isPlainObject(value)) return { error: new ValidationError('line', 'must hold a JSON object (a message with a "type")', 'import') }
  // The caller's object is read once, here, into the import's own copy (each getter once); every
  // field below is read as an own field: nothing of a polluted Object.prototype is taken for one.
  const item: Record<string, unknown> = isText ? value : { ...value }
  let message = item
  let type = ownField(item, 'type')
  if (isDevRecord(item)) {
    if (ids.records !== undefined && !ids.records.keep(item.verdict as string)) return { skip: true }
    message = isText ? (item.message as Record<string, unknown>) : { ...(item.message as Record<string, unknown>) }
    type = typeof type === 'string' ? type : ownField(message, 'type')
  } else if (ids.records?.only === true) {
    return { error: new ValidationError('line', 'is not a record of eventrail dev --out (--verdict imports only those)', 'import') }
  }
  if (typeof type !== 'string' || !MESSAGE_TYPES.has(type)) {
    return { error: new ValidationError('type', 'is required and must be one of identify, track, page, screen, group, alias', 'import') }
  }
  // The line's text is the message when it is not a record and any messageId is its own field, as written.
  const ownText = isText && message === item ? text : undefined
  let addedId: string | undefined
  if (ownField(message, 'messageId') == null) {
    const hadField = Object.hasOwn(message, 'messageId')
    const id = ids.custom ? customId(ids.custom, message, position) : undefined
    if (id instanceof ValidationError) return { type: type as MessageType, error: id }
    const derived = id ?? (isText ? ids.hashLine(text, position) : undefined)
    if (derived === undefined || hadField) return { type: type as MessageType, message: withId(message, derived) }
    message = withId(message, derived)
    addedId = derived
  }
  if (ownText === undefined) return { type: type as MessageType, message }
  // The bytes given are those of a string source; a Uint8Array's are its length, unless decoding
  // replaced some (they were not UTF-8).
  const bytes = typeof source === 'string' ? textBytes : ownText.includes('\ufffd') ? undefined : (source as Uint8Array).length
  const line: ParsedLine = { text: ownText, value: message, addedId, bytes }
  return { type: type as MessageType, message, line }
}

// The caller's `messageId` option for one item: its id, or why the item is refused (it threw, or
// returned something that is not an id).
function customId(
  custom: NonNullable<IdPolicy['custom']>,
  message: Record<string, unknown>,
  position: number,
): string | undefined | ValidationError {
  let id: unknown
  try {
    id = custom(message, position)
  } catch (err) {
    return new ValidationError(
      'messageId',
      `option threw for this item: ${err instanceof Error ? err.message : String(err)}`,
      'importMessages',
    )
  }
  if (id == null) return undefined
  if (typeof id !== 'string') {
    return new ValidationError('messageId', `option must return a string or undefined (got ${describe(id)})`, 'importMessages')
  }
  return id
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

// The message is the import's own (parsed from text, or its copy of the caller's object): the id goes on it.
function withId(message: Record<string, unknown>, id: string | undefined): Record<string, unknown> {
  if (id === undefined) return message
  message.messageId = id
  return message
}

/** A record of the JSON-lines file that `eventrail dev --out` writes: the message it received, with its verdict. */
export function isDevRecord(value: Record<string, unknown>): boolean {
  return (
    typeof ownField(value, 'verdict') === 'string' &&
    typeof ownField(value, 'receivedAt') === 'string' &&
    isPlainObject(ownField(value, 'message'))
  )
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')
}
