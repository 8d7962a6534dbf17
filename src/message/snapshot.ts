import { ValidationError } from '../core/errors'
import { MAX_MESSAGE_BYTES } from '../core/limits'
import type { MessageType } from '../core/types'
import { describeMessage, describeThrown, describeValue } from '../core/describe'
import { hasEnumerableFields, JsonCopier } from './json-copy'
import { takeReadAhead } from './read-ahead'
import { SENT_AT_FIELD_BYTES } from './serialize'

/**
 * The caller's message, read once: every own enumerable field of theirs, each read exactly once,
 * with every nested value already as JSON will write it (see {@link JsonCopier}). Validation,
 * normalization and serialization read only this. The fields the client knows come first, so that
 * they are own fields even when absent (an inherited `userId` cannot pass validation), in the
 * order they go on the wire.
 */
export interface Snapshot {
  type: MessageType
  messageId: unknown
  timestamp: unknown
  context: unknown
  userId: unknown
  anonymousId: unknown
  previousId: unknown
  groupId: unknown
  event: unknown
  name: unknown
  category: unknown
  properties: unknown
  traits: unknown
  integrations: unknown
  [field: string]: unknown
}

const NOT_READ = Symbol('not read')

/**
 * Reads the caller's message once into a {@link Snapshot}. The message must be a plain object (an
 * object literal, `JSON.parse`'s result, `Object.create(null)`); its `toJSON()`, if it has one, is
 * honoured as `JSON.stringify` would: what it returns is the message.
 * @throws ValidationError naming the field that could not be read or copied (a getter or a
 * `toJSON()` that threw, a cycle, a BigInt, nesting too deep), MessageTooLargeError as soon as the
 * message is known to be over 32 KB.
 */
export function snapshotMessage(type: MessageType, input: unknown): Snapshot {
  return takeReadAhead(input) ?? readMessage(type, input, true)
}

function readMessage(type: MessageType, input: unknown, honourToJSON: boolean): Snapshot {
  const source = plainObject(type, input, honourToJSON ? 'got' : 'its toJSON() returned')
  const copier = new JsonCopier(type, type === 'alias' ? MAX_MESSAGE_BYTES - SENT_AT_FIELD_BYTES : MAX_MESSAGE_BYTES)
  const snapshot: Snapshot = {
    type,
    messageId: undefined,
    timestamp: undefined,
    context: undefined,
    userId: undefined,
    anonymousId: undefined,
    previousId: undefined,
    groupId: undefined,
    event: undefined,
    name: undefined,
    category: undefined,
    properties: undefined,
    traits: undefined,
    integrations: undefined,
  }
  // JSON.stringify looks for toJSON first and, when there is one, reads nothing else itself.
  let toJSON: unknown = NOT_READ
  let key = ''
  try {
    if (honourToJSON && Object.hasOwn(source, 'toJSON')) {
      key = 'toJSON'
      toJSON = source.toJSON
      if (typeof toJSON === 'function') return readMessage(type, callToJSON(type, toJSON as (key: string) => unknown, source), false)
    }
    // for-in, not Object.keys: V8 reads the fields of a for-in fast (its enumeration cache). It
    // also lists inherited enumerable fields, which only a polluted Object.prototype has.
    const isPolluted = hasEnumerableFields(Object.prototype)
    for (key in source) {
      if (isPolluted && !Object.hasOwn(source, key)) continue
      const value = key === 'toJSON' && toJSON !== NOT_READ ? toJSON : source[key]
      // `type` is the method's; `sentAt` belongs to each request.
      if (key === 'type' || key === 'sentAt') continue
      const kind = typeof value
      if ((kind === 'object' && value !== null) || kind === 'function' || kind === 'bigint') {
        // Checked and copied after the loop (an object field), or checked as it is (timestamp, and
        // a field the spec makes a string: its toJSON must not turn a Date into a valid id).
        if (key === 'timestamp' || isObjectField(key) || (isStringField(type, key) && !isBoxedPrimitive(value)))
          setField(snapshot, key, value)
        else setField(snapshot, key, copier.copyField(value, key, source))
      } else {
        if (kind === 'string') copier.spend(key.length + (value as string).length + 5)
        else if (kind !== 'undefined' && kind !== 'symbol') copier.spend(key.length + 4)
        setField(snapshot, key, value)
      }
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err
    const [field, what] = key === '' ? ['message', 'listing its fields'] : [key, 'its getter']
    throw new ValidationError(field, `could not be read: ${what} threw ${describeThrown(err)}`, type, { cause: err })
  }
  if (snapshot.properties != null) snapshot.properties = copyObjectField(type, 'properties', snapshot.properties, source, copier)
  if (snapshot.traits != null) snapshot.traits = copyObjectField(type, 'traits', snapshot.traits, source, copier)
  if (snapshot.context != null) snapshot.context = copyObjectField(type, 'context', snapshot.context, source, copier)
  if (snapshot.integrations != null) snapshot.integrations = copyObjectField(type, 'integrations', snapshot.integrations, source, copier)
  return snapshot
}

function plainObject(type: MessageType, input: unknown, origin: string): Record<string, unknown> {
  let isPlain = false
  try {
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
      // An object literal's prototype, or null, or (from another realm) one whose own prototype is null.
      const proto: unknown = Object.getPrototypeOf(input)
      isPlain = proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null
    }
  } catch (err) {
    throw new ValidationError('message', `could not be read (${describeThrown(err)})`, type, { cause: err })
  }
  if (!isPlain) throw new ValidationError('message', `must be a plain object, ${origin} ${describeMessage(input)}`, type)
  return input as Record<string, unknown>
}

function callToJSON(type: MessageType, toJSON: (key: string) => unknown, source: object): unknown {
  try {
    return toJSON.call(source, '')
  } catch (err) {
    throw new ValidationError('message', `could not be serialized: its toJSON() threw ${describeThrown(err)}`, type, { cause: err })
  }
}

function copyObjectField(type: MessageType, name: string, value: unknown, source: object, copier: JsonCopier): unknown {
  if (!isObject(value)) throw new ValidationError(name, `must be an object, got ${describeValue(value)}`, type)
  const copy = copier.copyField(value, name, source)
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    throw new ValidationError(name, `must be an object: its toJSON() returned ${describeValue(copy)}`, type)
  }
  return copy
}

function isObjectField(key: string): boolean {
  return key === 'properties' || key === 'traits' || key === 'context' || key === 'integrations'
}

/**
 * A field whose type the spec fixes as a string (or, for the ids, a number) and that validation
 * checks for this type: the ids and `messageId` everywhere, `event` of track, `name` and
 * `category` of page and screen. An object there (a Date, anything with a `toJSON`) is kept as it
 * is, for validation to refuse naming the field; elsewhere (an extra field) it is sent as JSON
 * writes it.
 */
function isStringField(type: MessageType, key: string): boolean {
  switch (key) {
    case 'userId':
    case 'anonymousId':
    case 'previousId':
    case 'groupId':
    case 'messageId':
      return true
    case 'event':
      return type === 'track'
    case 'name':
    case 'category':
      return type === 'page' || type === 'screen'
    default:
      return false
  }
}

// `new String('u1')` is a string to JSON and to lodash.isstring (which the client once used): it
// is unboxed by the copy, as before.
function isBoxedPrimitive(value: unknown): boolean {
  return value instanceof String || value instanceof Number
}

// An own "__proto__" field stays data: an assignment would set the snapshot's prototype.
function setField(snapshot: Snapshot, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(snapshot, key, { value, enumerable: true, writable: true, configurable: true })
  else snapshot[key] = value
}

/**
 * An object as the spec means it for `properties`, `traits`, `context` and `integrations`: not
 * null, not an array, and not a value that JSON turns into something else or into nothing
 * (a Date, a Map, a Set, a boxed primitive, a typed array or a Buffer).
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof Map) &&
    !(value instanceof Set) &&
    !(value instanceof String) &&
    !(value instanceof Number) &&
    !(value instanceof Boolean) &&
    !ArrayBuffer.isView(value)
  )
}
