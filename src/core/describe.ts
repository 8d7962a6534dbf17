/**
 * What a value is, in words, for an error message: `null`, `a string`, `an array`, `a Buffer`,
 * `a Map`, `a Point` (a class instance). Never calls the value's own methods and never throws.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  const type = typeof value
  if (type === 'undefined') return 'undefined'
  if (type === 'function') return 'a function'
  if (type !== 'object') return withArticle(type)
  if (isArray(value)) return 'an array'
  const name = kindName(value as object)
  if (name === 'Object') return 'an object'
  if (name.startsWith('object ')) return `an ${name}`
  return withArticle(BOXED.has(name) ? `${name} object` : name)
}

/** The same, for the message argument: a string gets a hint, as it is most often unparsed JSON. */
export function describeMessage(value: unknown): string {
  if (typeof value === 'string') return value.trim().startsWith('{') ? 'a string: parse it first (JSON.parse)' : 'a string'
  return describeValue(value)
}

/**
 * Text for something that was thrown, whatever it is: an Error's name and message, a Symbol's
 * description, `String(value)` otherwise. Never throws, even for a value whose `toString` throws.
 */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) return `${value.name}: ${value.message}`
    if (typeof value === 'symbol') return value.toString()
    return String(value)
  } catch {
    return `${describeValue(value)} that cannot be turned into a string`
  }
}

// Array.isArray throws for a revoked Proxy.
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value)
  } catch {
    return false
  }
}

const BOXED = new Set(['String', 'Number', 'Boolean', 'Symbol', 'BigInt'])

// The constructor's name as the prototype tells it (the value's own fields are not read), else its
// Symbol.toStringTag (a generator has no constructor of its own), else "object".
function kindName(value: object): string {
  try {
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto === null) return 'Object'
    // Object.create(someObject): its fields may be inherited, and inherited fields are not sent.
    if (proto !== Object.prototype && Object.getPrototypeOf(proto) !== null && (proto as object).constructor === Object) {
      return 'object that inherits from another object'
    }
    const ctor: unknown = (proto as { constructor?: unknown }).constructor
    if (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '') return ctor.name
    const tag = Object.prototype.toString.call(value).slice(8, -1)
    return tag === '' ? 'object' : tag
  } catch {
    return 'object'
  }
}

function withArticle(noun: string): string {
  return `${/^[aeio]/i.test(noun) ? 'an' : 'a'} ${noun}`
}
