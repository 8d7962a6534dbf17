import { nestsDeeperThan } from './json-depth'
import { MAX_MESSAGE_BYTES } from '../core/limits'
import { utf8ByteLength } from '../platform/runtime'
import type { MessageType } from '../core/types'
import { hasEnumerableFields, MAX_NESTING_DEPTH } from './json-copy'
import { LIBRARY_CONTEXT_JSON } from './normalize'
import { prepareCall, type ParsedLine, type PrepareMessage } from './prepare'
import { isObject, type Snapshot } from './snapshot'
import { validateMessage } from './validate'

// The import's way to a message: only `importMessages` and `eventrail import` load this module
// (they hand it to the client with each line), so `import 'eventrail'` does not.

// A number JSON.parse reads as Infinity or 0 (an exponent of 3 digits, 309 digits in a row):
// JSON.stringify would not write it back as it is, so such a line is re-serialized.
const LONG_EXPONENT = /[eE][+-]?\d{3}/
const LONG_DIGIT_RUN = 309
// The deepest a line sent as written may nest (its own braces counted): below the copy's limit.
const MAX_DEPTH = MAX_NESTING_DEPTH - 1
// Up to this length a line cannot nest deeper than MAX_DEPTH (each level takes 2 characters).
const SHALLOW_LENGTH = 2 * MAX_DEPTH

/**
 * A line's message, validated exactly as a call's, sent as written when its text already is what
 * the client would send: the fields the client adds (`messageId`, `timestamp`, `context.library`)
 * go in front of the line's own. JSON is not written a second time for it, which is most of a
 * call's cost. A line that normalization would change (a number or null id, a `sentAt`, a context
 * without `library`, numbers JSON cannot write back, deep nesting, over 32 KB as written) goes the
 * way of a call, through {@link prepareCall}, and ends up the same on the wire.
 * @throws ValidationError naming the field and the rule; MessageTooLargeError over 32 KB.
 */
export const prepareParsedLine: PrepareMessage<ParsedLine> = (type, line, nowIso) => {
  const { value, addedId } = line
  const text = line.text.trim()
  if (!isSentAsWritten(type, value, text)) return prepareCall(type, value, nowIso)
  validateMessage(type, value as Snapshot)
  // The head is ASCII (a date, the library's name and version), but for an id of the caller's own:
  // its length is its bytes, and measuring it would flatten it.
  let head = '{'
  let headExtraBytes = 0
  if (addedId !== undefined) {
    // An id of plain ASCII (a derived one always) is its own JSON, without escaping or measuring.
    const isPlain = isPlainAscii(addedId)
    const idJson = isPlain ? `"${addedId}"` : JSON.stringify(addedId)
    if (!isPlain) headExtraBytes = utf8ByteLength(idJson) - idJson.length
    head += `"messageId":${idJson},`
  }
  const hasTimestamp = value.timestamp !== undefined
  const hasContext = value.context !== undefined
  if (!hasTimestamp || !hasContext) head += addedFields(hasTimestamp ? undefined : nowIso(), !hasContext)
  // Counted on the parts: measuring them joined would flatten them (a copy of the line).
  const textBytes = line.bytes !== undefined && text === line.text ? line.bytes : utf8ByteLength(text)
  const bytes = head.length + headExtraBytes + textBytes - 1
  // Over the limit as written (white space counts): the canonical form decides, and names the size.
  if (bytes > MAX_MESSAGE_BYTES) return prepareCall(type, value, nowIso)
  return head.length === 1 ? { json: text, bytes } : { json: text, bytes, head }
}

// Printable ASCII but `"` and `\`: such a string's JSON is itself in quotes. A loop: an id is short,
// and a regular expression's call costs more than reading it.
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false
  }
  return true
}

const CONTEXT_FIELD = `"context":${LIBRARY_CONTEXT_JSON},`
// The timestamp and context fields of a head, made once a millisecond (the clock's date is one
// string for the whole millisecond): most lines of an import need the same.
let lastIso: string | undefined
let lastTimestamp = ''
let lastTimestampAndContext = ''
function addedFields(iso: string | undefined, addsContext: boolean): string {
  if (iso === undefined) return addsContext ? CONTEXT_FIELD : ''
  if (iso !== lastIso) {
    lastIso = iso
    lastTimestamp = `"timestamp":"${iso}",`
    lastTimestampAndContext = lastTimestamp + CONTEXT_FIELD
  }
  return addsContext ? lastTimestampAndContext : lastTimestamp
}

function isSentAsWritten(type: MessageType, value: Record<string, unknown>, text: string): boolean {
  // A polluted Object.prototype (an enumerable field set on it) would answer for the fields the
  // line lacks (a `userId`, a `timestamp`): the line goes the way of a call, whose snapshot reads
  // own fields only. An unpolluted prototype costs one empty for-in.
  if (hasEnumerableFields(Object.prototype)) return false
  if (type === 'alias' || value.type !== type || text.charCodeAt(0) !== 0x7b || Object.hasOwn(value, 'sentAt')) return false
  if (typeof value.messageId !== 'string') return false
  if (Object.hasOwn(value, 'timestamp') && typeof value.timestamp !== 'string') return false
  const context = value.context
  if (context !== undefined && !(isObject(context) && Object.hasOwn(context, 'library'))) return false
  // Each field by name, not in a loop over their names: a property read by a name that varies is
  // a slow lookup, by a fixed name a fast one (~1.5 % of an import's time).
  if (!isStringIdOrAbsent(value.userId) || !isStringIdOrAbsent(value.anonymousId)) return false
  if (!isStringIdOrAbsent(value.previousId) || !isStringIdOrAbsent(value.groupId)) return false
  if (!isObjectOrAbsent(value.properties) || !isObjectOrAbsent(value.traits) || !isObjectOrAbsent(value.integrations)) return false
  // A lone surrogate (a string line, not read from bytes) would go out as U+FFFD; a call escapes it.
  if (!isWellFormed(text)) return false
  if (LONG_EXPONENT.test(text) || hasLongDigitRun(text)) return false
  return text.length <= SHALLOW_LENGTH || !nestsDeeperThan(text, MAX_DEPTH)
}

// An id that normalization leaves as it is: absent, or a string that is not blank.
function isStringIdOrAbsent(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && value.trim() !== '')
}

function isObjectOrAbsent(value: unknown): boolean {
  return value === undefined || value === null || isObject(value)
}

const wellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed
// String#isWellFormed (Node 20+); without it, any surrogate at all sends the line the way of a call.
function isWellFormed(text: string): boolean {
  return wellFormed !== undefined ? wellFormed.call(text) : !/[\ud800-\udfff]/.test(text)
}

/**
 * Whether `text` has 309 digits in a row. Such a run covers one of every 309th character, so only
 * those are looked at, and the run around each that is a digit: a few reads a line, not a regular
 * expression's attempt at every digit.
 */
export function hasLongDigitRun(text: string): boolean {
  for (let i = LONG_DIGIT_RUN - 1; i < text.length; i += LONG_DIGIT_RUN) {
    if (!isDigit(text.charCodeAt(i))) continue
    let start = i
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--
    let end = i + 1
    while (end < text.length && isDigit(text.charCodeAt(end))) end++
    if (end - start >= LONG_DIGIT_RUN) return true
  }
  return false
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39
}
