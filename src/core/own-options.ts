import { ValidationError } from './errors'
import { describeThrown } from './describe'

/** An options object as the library reads it: the caller's own fields only, on no prototype. */
export type OwnFields = Readonly<Record<string | symbol, unknown>>

/**
 * The caller's options object, read once: each own enumerable field (string or symbol key) read
 * exactly once into an object with no prototype, which every later check reads instead. A field
 * of `Object.prototype` (set by a prototype pollution elsewhere in the app: `host`, `spool`,
 * `enable`…) is never seen, and a getter cannot answer two reads differently. The caller has
 * already checked that `value` is an object.
 * @param field - the option's name in an error (`options`, `spool`…).
 * @param where - the function the options were given to, in an error.
 * @throws ValidationError naming the field whose getter threw, or `field` when its fields could
 * not be listed (a Proxy whose trap threw).
 */
export function ownOptions(value: object, field: string, where: string): OwnFields {
  const copy: Record<string | symbol, unknown> = Object.create(null) as Record<string | symbol, unknown>
  let keys: (string | symbol)[]
  try {
    keys = Reflect.ownKeys(value)
  } catch (err) {
    throw new ValidationError(field, `could not be read: listing its fields threw ${describeThrown(err)}`, where, { cause: err })
  }
  for (const key of keys) {
    try {
      if (!Object.prototype.propertyIsEnumerable.call(value, key)) continue
      // On a null-prototype object, even "__proto__" is an ordinary own field.
      copy[key] = (value as Record<string | symbol, unknown>)[key]
    } catch (err) {
      const name = typeof key === 'symbol' ? String(key) : key
      throw new ValidationError(`${field}.${name}`, `could not be read: its getter threw ${describeThrown(err)}`, where, { cause: err })
    }
  }
  return copy
}

/**
 * `object[key]`, unless the only `key` there is `Object.prototype`'s (a polluted prototype): for
 * objects whose methods may rightly come from their class (a plugin made with `class`, a schema
 * of a library), where {@link ownOptions} would lose them. Reads the field once.
 */
export function fieldOf(object: object, key: string | symbol): unknown {
  for (let o: object | null = object; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    if (Object.hasOwn(o, key)) return (object as Record<string | symbol, unknown>)[key]
  }
  return undefined
}

/** `object[key]` when it is the object's own field; else undefined. Reads the field once. */
export function ownField(object: object, key: string | symbol): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string | symbol, unknown>)[key] : undefined
}

/**
 * Whether `object` has `key` from a prototype of its own (a class), not `Object.prototype`. Reads
 * no field; false when the prototypes cannot be listed (a Proxy whose trap throws).
 */
export function hasClassField(object: object, key: string | symbol): boolean {
  try {
    for (
      let o = Object.getPrototypeOf(object) as object | null;
      o !== null && o !== Object.prototype;
      o = Object.getPrototypeOf(o) as object | null
    ) {
      if (Object.hasOwn(o, key)) return true
    }
  } catch {
    // Nothing to say about a prototype that cannot be read: its fields were never used either.
  }
  return false
}
