import { MessageTooLargeError, ValidationError } from '../core/errors'
import { describeThrown } from '../core/describe'

/** Deepest nesting of objects and arrays a message may have. */
export const MAX_NESTING_DEPTH = 1000

type Path = (string | number)[]

/**
 * Copies values as `JSON.stringify` would see them, reading each field once, and stops as soon as
 * the message is known to be over its byte limit.
 *
 * The copy holds only what JSON writes: `toJSON()` already called (once), boxed primitives
 * unboxed, own enumerable fields of plain objects, class instances, Maps (none) and typed arrays.
 * `JSON.stringify` of the copy runs no code of the caller's and cannot fail.
 *
 * The size counted is a lower bound of the UTF-8 JSON bytes (a character is at least one byte, a
 * number at least one digit), so a message is never refused by it that would fit. Past the limit
 * the walk stops: refusing a 50 MB string, a 10 MB Buffer or an array of a million numbers costs
 * about as much as 32 KB of them. The exact size is counted on the JSON text, after.
 */
export class JsonCopier {
  #remaining: number
  readonly #where: string
  readonly #limit: number
  readonly #ancestors: object[] = []
  readonly #path: Path = []

  /**
   * @param where - the method, for error messages (`track`).
   * @param limit - the byte limit of the message.
   * @param remaining - bytes left under the limit (the caller may have counted some already).
   */
  constructor(where: string, limit: number, remaining = limit) {
    this.#where = where
    this.#limit = limit
    this.#remaining = remaining
  }

  /** Counts `bytes` of output; throws MessageTooLargeError once past the limit. */
  spend(bytes: number): void {
    this.#remaining -= bytes
    if (this.#remaining < 0) throw new MessageTooLargeError(this.#where, this.#limit - this.#remaining, this.#limit, true)
  }

  /**
   * The JSON view of `value`, the value of field `key` of `holder` (the caller's object it was
   * read from, which counts as an ancestor for cycles).
   * @throws ValidationError naming the top-level field: a cycle, a BigInt, a getter or a `toJSON()`
   * that threw, nesting deeper than {@link MAX_NESTING_DEPTH}; MessageTooLargeError past the limit.
   */
  copyField(value: unknown, key: string, holder: object): unknown {
    this.#ancestors.push(holder)
    try {
      return this.#copy(value, key)
    } finally {
      this.#ancestors.pop()
    }
  }

  #copy(value: unknown, key: string | number): unknown {
    const type = typeof value
    if (type !== 'object' && type !== 'function' && type !== 'bigint') return this.#leaf(value)
    if (value === null) return this.#leaf(value)
    // A typed array or a Buffer is bounded by its length before its toJSON() (Buffer's builds an
    // array of every byte): each element is at least one digit and a comma.
    if (type === 'object' && ArrayBuffer.isView(value)) {
      const length = (value as Uint8Array).length
      if (typeof length === 'number' && 2 * length + 1 > this.#remaining) this.spend(2 * length + 1)
    }
    let toJSON: unknown
    try {
      toJSON = (value as { toJSON?: unknown }).toJSON
      if (typeof toJSON === 'function') value = toJSON.call(value, String(key))
    } catch (err) {
      const what = typeof toJSON === 'function' ? 'the toJSON() of {path} threw' : 'reading the toJSON of {path} threw'
      throw this.#error(key, `could not be serialized: ${what} ${describeThrown(err)}`, err)
    }
    return this.#copyData(value, key)
  }

  // A value whose toJSON (if any) has been applied: JSON does not apply another.
  #copyData(value: unknown, key: string | number): unknown {
    const type = typeof value
    if (type === 'bigint') throw this.#error(key, 'contains a BigInt at {path}, which JSON cannot represent')
    if (type !== 'object' || value === null) return this.#leaf(value)
    const object = value as object
    const ancestors = this.#ancestors
    if (ancestors.includes(object)) throw this.#error(key, 'contains a circular reference at {path}, which JSON cannot represent')
    if (ancestors.length > MAX_NESTING_DEPTH) throw this.#error(key, `is nested more than ${MAX_NESTING_DEPTH} levels deep (at {path})`)
    ancestors.push(object)
    this.#path.push(key)
    try {
      if (Array.isArray(object)) return this.#copyArray(object)
      const proto: unknown = Object.getPrototypeOf(object)
      if (proto === Object.prototype || proto === null) return this.#copyPlain(object)
      return this.#copyOther(object)
    } finally {
      ancestors.pop()
      this.#path.pop()
    }
  }

  #copyArray(array: unknown[]): unknown[] {
    const length = array.length
    // Brackets and commas; each element then counts at least one byte of its own.
    this.spend(length + 1)
    const copy = new Array<unknown>(length)
    let i = 0
    try {
      for (; i < length; i++) {
        const item = array[i]
        copy[i] = isComposite(item) ? this.#copy(item, i) : this.#leaf(item)
        if (copy[i] === undefined) this.spend(4) // null
      }
    } catch (err) {
      throw this.#readError(i, err)
    }
    return copy
  }

  // The fast path: a spread reads every field once, natively; nested objects are then replaced
  // by their copies in place, so a plain object costs one allocation.
  #copyPlain(object: object): unknown {
    let copy: Record<string, unknown>
    try {
      copy = { ...object }
    } catch {
      // The spread does not say which getter threw: find it (the message is refused anyway).
      return this.#copyOther(object)
    }
    this.spend(2)
    const isPolluted = hasEnumerableFields(Object.prototype)
    // for-in over the copy: V8 reads its fields fast (the enumeration cache of the copy's shape).
    for (const key in copy) {
      if (isPolluted && !Object.hasOwn(copy, key)) continue
      const item = copy[key]
      if (isComposite(item)) {
        const data = this.#copy(item, key)
        copy[key] = data
        if (data !== undefined) this.spend(key.length + 3)
      } else if (typeof item === 'string') this.spend(key.length + item.length + 5)
      else if (item !== undefined && typeof item !== 'symbol') this.spend(key.length + 4)
    }
    return copy
  }

  // Class instances, Maps, typed arrays, proxies, boxed primitives: own enumerable fields one by one.
  #copyOther(object: object): unknown {
    const ownKey = this.#path[this.#path.length - 1]
    let keys: string[]
    try {
      if (object instanceof String) return this.#leaf(String(object))
      if (object instanceof Number) return this.#leaf(Number(object))
      if (object instanceof Boolean) return this.#leaf(Boolean.prototype.valueOf.call(object))
      if (object instanceof BigInt) return this.#copyData(BigInt.prototype.valueOf.call(object), ownKey)
      keys = Object.keys(object)
    } catch (err) {
      if (err instanceof ValidationError) throw err
      throw this.#error(undefined, `could not be read: reading {path} threw ${describeThrown(err)}`, err)
    }
    this.spend(2)
    const copy: Record<string, unknown> = {}
    let i = 0
    try {
      for (; i < keys.length; i++) {
        const key = keys[i]
        const item = (object as Record<string, unknown>)[key]
        const data = isComposite(item) ? this.#copy(item, key) : this.#leaf(item)
        if (data === undefined) continue
        this.spend(key.length + 3)
        // An own "__proto__" field stays data: an assignment would set the copy's prototype.
        if (key === '__proto__') Object.defineProperty(copy, key, { value: data, enumerable: true, writable: true, configurable: true })
        else copy[key] = data
      }
    } catch (err) {
      throw this.#readError(keys[i], err)
    }
    return copy
  }

  // A primitive as JSON writes it: undefined for what JSON leaves out (functions are composite).
  #leaf(value: unknown): unknown {
    const type = typeof value
    if (type === 'string') this.spend((value as string).length + 2)
    else if (type === 'number' || type === 'boolean') this.spend(1)
    else if (value === null) this.spend(4)
    else if (type === 'symbol' || type === 'function') return undefined
    return value
  }

  // What a getter (or a proxy trap) threw while field `key` of the current object was read.
  #readError(key: string | number, err: unknown): Error {
    if (err instanceof ValidationError) return err
    return this.#error(key, `could not be read: reading {path} threw ${describeThrown(err)}`, err)
  }

  #error(key: string | number | undefined, rule: string, cause?: unknown): ValidationError {
    const path = key === undefined ? this.#path : [...this.#path, key]
    return new ValidationError(String(path[0]), rule.replace('{path}', formatPath(path)), this.#where, { cause })
  }
}

/** Whether `object` has an enumerable field of its own: for a clean Object.prototype, the check costs one empty for-in. */
export function hasEnumerableFields(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true
  return false
}

function isComposite(value: unknown): boolean {
  const type = typeof value
  return (type === 'object' && value !== null) || type === 'function' || type === 'bigint'
}

// `properties.items[2].name`, cut short in the middle when it is very deep.
function formatPath(path: Path): string {
  const parts = path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`))
  return parts.length > 12 ? [...parts.slice(0, 6), '…', ...parts.slice(-5)].join('') : parts.join('')
}
