import { LIBRARY_NAME, MAX_MESSAGE_BYTES, VERSION, type MessageType } from '../../src'

/** Every message method. */
export const METHODS: readonly MessageType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias']

/** Where free-form data goes for each method: properties, traits, or (alias has neither) context. */
export function payloadField(method: MessageType): 'properties' | 'traits' | 'context' {
  if (method === 'identify' || method === 'group') return 'traits'
  if (method === 'alias') return 'context'
  return 'properties'
}

/** A valid message of `method` with a known messageId. */
export function validMessage(method: MessageType, messageId: string): Record<string, unknown> {
  const common = { userId: 'user-1', messageId }
  switch (method) {
    case 'identify':
      return { ...common, traits: { plan: 'pro' } }
    case 'track':
      return { ...common, event: 'Hostile Test', properties: { n: 1 } }
    case 'page':
      return { ...common, name: 'Home', properties: { url: 'https://example.com/' } }
    case 'screen':
      return { ...common, name: 'Settings', properties: { n: 1 } }
    case 'group':
      return { ...common, groupId: 'group-1', traits: { plan: 'pro' } }
    case 'alias':
      return { ...common, previousId: 'anon-1' }
  }
}

/** What a case must come to for a method: accepted, or a ValidationError naming `field`; undefined: either. */
export type Expectation = 'accept' | { field: string } | undefined

export interface HostileCase {
  readonly name: string
  /** Makes the hostile message from a fresh valid one (which it may change) for `method`. */
  make(message: Record<string, unknown>, method: MessageType): unknown
  expect?(method: MessageType): Expectation
}

const accept = (): Expectation => 'accept'
const reject = (field: string) => (): Expectation => ({ field })
const rejectPayload = (method: MessageType): Expectation => ({ field: payloadField(method) })
const tooLarge = reject('message')
/** Only `methods` check this field; for the others it is an extra field, sent as is. */
const rejectFor =
  (methods: MessageType[], field: string) =>
  (method: MessageType): Expectation =>
    methods.includes(method) ? { field } : 'accept'

/** Puts `value` under key `key` of the method's payload object. */
function inPayload(key: string, value: () => unknown): HostileCase['make'] {
  return (message, method) => {
    const field = payloadField(method)
    message[field] = { ...(message[field] ?? {}), [key]: value() }
    return message
  }
}

/** Replaces the method's payload object. */
function asPayload(value: () => unknown): HostileCase['make'] {
  return (message, method) => {
    message[payloadField(method)] = value()
    return message
  }
}

function set(key: string, value: () => unknown): HostileCase['make'] {
  return (message) => {
    message[key] = value()
    return message
  }
}

function nested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

function nestedArray(depth: number): unknown {
  let value: unknown = []
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

function circular(): Record<string, unknown> {
  const o: Record<string, unknown> = { name: 'loop' }
  o.self = o
  return o
}

/** Serialized bytes the client counts for a message (key order does not change the count). */
export function wireBytes(method: MessageType, message: Record<string, unknown>): number {
  const { context, ...rest } = message
  const wire = { ...rest, type: method, context: { library: { name: LIBRARY_NAME, version: VERSION }, ...(context as object) } }
  const sentAt = method === 'alias' ? ',"sentAt":"2000-01-01T00:00:00.000Z"'.length : 0
  return Buffer.byteLength(JSON.stringify(wire)) + sentAt
}

/** Pads the payload so that the message is exactly `MAX_MESSAGE_BYTES + over` bytes on the wire. */
function sizedTo(over: number): HostileCase['make'] {
  return (message, method) => {
    message.timestamp = '2024-01-01T00:00:00.000Z'
    const field = payloadField(method)
    const payload = { ...((message[field] as object) ?? {}), pad: '' }
    message[field] = payload
    payload.pad = 'x'.repeat(MAX_MESSAGE_BYTES + over - wireBytes(method, message))
    return message
  }
}

/** A getter named "boom" that throws what `thrown` makes. */
function throwingGetter(thrown: () => unknown): HostileCase['make'] {
  return (m) =>
    Object.defineProperty(m, 'boom', {
      get: () => {
        throw thrown()
      },
      enumerable: true,
    })
}

/** Objects that are not plain (named for the test), each carrying a valid message's fields. */
export function notPlainMessages(): [string, HostileCase['make']][] {
  const withFields =
    <T extends object>(target: T) =>
    (m: Record<string, unknown>) =>
      Object.assign(target, m)
  return [
    ['a RegExp', withFields(/re/)],
    ['a Promise', withFields(Promise.resolve())],
    ['a Buffer', withFields(Buffer.from('{}'))],
    ['a Uint8Array', withFields(new Uint8Array(2))],
    ['a String object', withFields(new String('{}'))],
    ['a Map', withFields(new Map())],
    ['a Set', withFields(new Set())],
    ['a generator', withFields((function* () {})())],
    ['a class instance', withFields(new (class Point {})())],
    ['an Error', withFields(new Error('e'))],
  ]
}

export const CASES: HostileCase[] = [
  // The message itself.
  { name: 'the message is null', make: () => null, expect: reject('message') },
  { name: 'the message is undefined', make: () => undefined, expect: reject('message') },
  { name: 'the message is a string', make: () => 'track me', expect: reject('message') },
  { name: 'the message is a number', make: () => 42, expect: reject('message') },
  { name: 'the message is an array', make: (m) => [m], expect: reject('message') },
  {
    name: 'the message is a function',
    make: (m) => Object.defineProperties(() => 1, Object.getOwnPropertyDescriptors(m)),
    expect: reject('message'),
  },
  { name: 'the message is a Date', make: () => new Date(), expect: reject('message') },
  {
    name: 'the message is a Proxy whose get throws',
    make: (m) =>
      new Proxy(m, {
        get: () => {
          throw new Error('trap')
        },
      }),
    // Its first field is the one that could not be read.
    expect: reject('userId'),
  },
  // Not a plain object: refused as such, whatever fields it carries (issue 11, item 1).
  ...notPlainMessages().map(([name, make]): HostileCase => ({ name: `the message is ${name}`, make, expect: reject('message') })),
  { name: 'the message is a JSON string', make: (m) => JSON.stringify(m), expect: reject('message') },
  {
    name: "the message's own toJSON throws",
    make: set('toJSON', () => () => {
      throw new Error('toJSON')
    }),
    expect: reject('message'),
  },
  { name: "the message's own toJSON returns a string", make: set('toJSON', () => () => 'flat'), expect: reject('message') },
  {
    name: 'the message is a revoked Proxy',
    make: (m) => {
      const p = Proxy.revocable(m, {})
      p.revoke()
      return p.proxy
    },
    expect: reject('message'),
  },
  {
    name: 'the message has a getter that throws',
    make: (m) =>
      Object.defineProperty(m, 'boom', {
        get: () => {
          throw new Error('getter')
        },
        enumerable: true,
      }),
    expect: reject('boom'),
  },
  // What is thrown cannot be turned into a string (issue 11, item 7).
  { name: 'the message has a getter that throws a Symbol', make: throwingGetter(() => Symbol('thrown')), expect: reject('boom') },
  {
    name: 'the message has a getter that throws an object whose toString throws',
    make: throwingGetter(() => ({
      toString() {
        throw new Error('toString')
      },
    })),
    expect: reject('boom'),
  },
  {
    name: 'the message has a getter that throws a null-prototype object',
    make: throwingGetter(() => Object.create(null)),
    expect: reject('boom'),
  },
  { name: 'the message refers to itself', make: (m) => Object.assign(m, { self: m }), expect: reject('self') },
  {
    name: 'the message has an own "__proto__" key',
    make: (m) => Object.assign(JSON.parse('{"__proto__":{"polluted":"yes"}}'), m),
    expect: accept,
  },
  {
    name: 'the message has "constructor" and "prototype" keys',
    make: set('constructor', () => ({ prototype: { polluted: 'yes' } })),
    expect: accept,
  },
  { name: 'the message is frozen', make: (m) => Object.freeze(m), expect: accept },
  { name: 'the message has a null prototype', make: (m) => Object.assign(Object.create(null), m), expect: accept },
  { name: 'the message has a symbol key', make: (m) => Object.assign(m, { [Symbol('s')]: 'hidden' }), expect: accept },
  { name: 'the message has a function field', make: set('extra', () => () => 'fn'), expect: accept },
  { name: 'the message has an undefined field', make: set('extra', () => undefined), expect: accept },
  { name: 'the message carries a wrong "type"', make: set('type', () => 'alias'), expect: accept },
  { name: 'the message carries its own "sentAt"', make: set('sentAt', () => 'yesterday'), expect: accept },

  // Identifiers.
  { name: 'userId is NaN', make: set('userId', () => NaN), expect: reject('userId') },
  { name: 'userId is Infinity', make: set('userId', () => Infinity), expect: reject('userId') },
  { name: 'userId is a BigInt', make: set('userId', () => 10n), expect: reject('userId') },
  { name: 'userId is a symbol', make: set('userId', () => Symbol('u')), expect: reject('userId') },
  { name: 'userId is an object', make: set('userId', () => ({ id: 1 })), expect: reject('userId') },
  { name: 'userId is an array', make: set('userId', () => ['u']), expect: reject('userId') },
  { name: 'userId is true', make: set('userId', () => true), expect: reject('userId') },
  { name: 'userId is blank', make: set('userId', () => '   '), expect: reject('userId') },
  { name: 'userId is a function', make: set('userId', () => () => 'u'), expect: reject('userId') },
  { name: 'userId is the number 0', make: set('userId', () => 0), expect: accept },
  { name: 'userId is a String object', make: set('userId', () => new String('boxed')), expect: accept },
  { name: 'userId holds a lone surrogate', make: set('userId', () => 'user-\ud800'), expect: accept },
  { name: 'userId holds NUL and line separators', make: set('userId', () => 'a\u0000b\u2028c\u2029d'), expect: accept },
  {
    name: 'userId is null next to a valid anonymousId',
    make: (m) => Object.assign(m, { userId: null, anonymousId: 'anon-9' }),
    expect: rejectFor(['alias'], 'userId'),
  },
  {
    name: 'both ids are missing',
    make: (m) => {
      delete m.userId
      return m
    },
    expect: reject('userId'),
  },
  { name: 'anonymousId is an empty string next to a valid userId (absent: left out)', make: set('anonymousId', () => ''), expect: accept },
  {
    name: 'userId is blank next to a valid anonymousId (absent: left out)',
    make: (m) => Object.assign(m, { userId: '  ', anonymousId: 'anon-9' }),
    expect: rejectFor(['alias'], 'userId'),
  },
  { name: 'both ids are blank strings', make: (m) => Object.assign(m, { userId: '', anonymousId: ' ' }), expect: reject('userId') },
  { name: 'previousId is NaN', make: set('previousId', () => NaN), expect: reject('previousId') },
  { name: 'groupId is an object', make: set('groupId', () => ({})), expect: reject('groupId') },
  { name: 'event is a number', make: set('event', () => 42), expect: rejectFor(['track'], 'event') },
  { name: 'event is blank', make: set('event', () => ' \t '), expect: rejectFor(['track'], 'event') },
  { name: 'event holds a lone surrogate', make: set('event', () => 'Ev\udfffent'), expect: accept },
  { name: 'name is an object', make: set('name', () => ({ n: 1 })), expect: rejectFor(['page', 'screen'], 'name') },
  { name: 'category is a number', make: set('category', () => 7), expect: rejectFor(['page', 'screen'], 'category') },
  { name: 'messageId is a number', make: set('messageId', () => 42), expect: reject('messageId') },
  { name: 'messageId is blank', make: set('messageId', () => ' '), expect: reject('messageId') },

  // Timestamps.
  { name: 'timestamp is an invalid Date', make: set('timestamp', () => new Date('nope')), expect: reject('timestamp') },
  { name: 'timestamp is a number', make: set('timestamp', () => Date.now()), expect: reject('timestamp') },
  { name: 'timestamp is free text', make: set('timestamp', () => 'yesterday at noon'), expect: reject('timestamp') },
  { name: 'timestamp has month 13', make: set('timestamp', () => '2024-13-01T00:00:00Z'), expect: reject('timestamp') },
  { name: 'timestamp is a Date past the end of time', make: set('timestamp', () => new Date(8.64e15 + 1)), expect: reject('timestamp') },
  {
    name: 'timestamp is a Date in the year 57,000',
    make: set('timestamp', () => new Date(Date.now() * 1000)),
    expect: reject('timestamp'),
  },
  {
    name: 'timestamp is a Date before the year 0',
    make: set('timestamp', () => new Date('-000001-06-01T00:00:00Z')),
    expect: reject('timestamp'),
  },
  { name: 'timestamp is a Date in the year 9999', make: set('timestamp', () => new Date('9999-12-31T23:59:59.999Z')), expect: accept },
  { name: 'timestamp is a valid Date', make: set('timestamp', () => new Date('2020-02-29T12:00:00.000Z')), expect: accept },

  // Object fields of the wrong kind.
  { name: 'the payload is an array', make: asPayload(() => [1, 2]), expect: rejectPayload },
  { name: 'the payload is a string', make: asPayload(() => 'text'), expect: rejectPayload },
  { name: 'the payload is a Map', make: asPayload(() => new Map([['a', 1]])), expect: rejectPayload },
  { name: 'the payload is a function', make: asPayload(() => () => 1), expect: rejectPayload },
  {
    name: 'the payload is a class instance',
    make: asPayload(
      () =>
        new (class Point {
          x = 1
          y = 2
        })(),
    ),
    expect: accept,
  },
  { name: 'the payload has a null prototype', make: asPayload(() => Object.assign(Object.create(null), { a: 1 })), expect: accept },
  // (For alias the payload is context, whose merge with context.library already fails: the error names "message".)
  {
    name: 'the payload is a Proxy whose ownKeys throws',
    make: asPayload(
      () =>
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('keys')
            },
          },
        ),
    ),
    expect: (m) => (m === 'alias' ? undefined : rejectPayload(m)),
  },
  { name: 'context is a string', make: set('context', () => 'ctx'), expect: reject('context') },
  { name: 'context overrides library', make: set('context', () => ({ library: { name: 'spoof', version: '9' } })), expect: accept },
  {
    name: 'integrations has a string value',
    make: set('integrations', () => ({ All: false, Mixpanel: 'yes' })),
    expect: reject('integrations.Mixpanel'),
  },
  { name: 'integrations is an array', make: set('integrations', () => [true]), expect: reject('integrations') },
  {
    name: 'integrations has an own "__proto__" key',
    make: set('integrations', () => JSON.parse('{"__proto__":true,"All":false}')),
    expect: accept,
  },
  {
    name: 'integrations has an own "__proto__" key holding an object',
    make: set('integrations', () => JSON.parse('{"__proto__":{"polluted":"yes"},"All":false}')),
    expect: reject('integrations.__proto__'),
  },
  {
    name: 'integrations has an options object (values are booleans, whatever the key)',
    make: set('integrations', () => ({ Amplitude: { session: 1 } })),
    expect: reject('integrations.Amplitude'),
  },

  // Values JSON cannot hold: a ValidationError naming the field.
  { name: 'the payload refers to itself', make: asPayload(circular), expect: rejectPayload },
  {
    name: 'the payload has a cycle through an array',
    make: inPayload('list', () => {
      const a: unknown[] = []
      a.push({ a })
      return a
    }),
    expect: rejectPayload,
  },
  { name: 'the payload holds a BigInt', make: inPayload('big', () => 2n ** 64n), expect: rejectPayload },
  { name: 'the payload holds a BigInt in an array', make: inPayload('list', () => [1, 2n]), expect: rejectPayload },
  {
    name: 'the payload has a getter that throws',
    make: inPayload('x', () =>
      Object.defineProperty({}, 'boom', {
        get: () => {
          throw new Error('getter')
        },
        enumerable: true,
      }),
    ),
    expect: rejectPayload,
  },
  {
    name: 'the payload has a toJSON that throws',
    make: inPayload('x', () => ({
      toJSON: () => {
        throw new Error('toJSON')
      },
    })),
    expect: rejectPayload,
  },
  { name: 'the payload is nested 10,000 deep', make: inPayload('deep', () => nested(10_000)), expect: rejectPayload },
  { name: 'the payload holds arrays nested 10,000 deep', make: inPayload('deep', () => nestedArray(10_000)), expect: rejectPayload },
  { name: 'the payload is nested 100,000 deep', make: inPayload('deep', () => nested(100_000)), expect: rejectPayload },
  { name: 'context refers to itself', make: set('context', circular), expect: reject('context') },

  // Values JSON.stringify turns into something else: sent that way.
  { name: 'NaN, Infinity and -Infinity', make: inPayload('n', () => ({ a: NaN, b: Infinity, c: -Infinity })), expect: accept },
  {
    name: 'negative zero, tiny and huge numbers',
    make: inPayload('n', () => [-0, 5e-324, Number.MAX_VALUE, 2 ** 53 + 1, 1e21]),
    expect: accept,
  },
  { name: 'an invalid Date in the payload', make: inPayload('when', () => new Date(NaN)), expect: accept },
  { name: 'a valid Date in the payload', make: inPayload('when', () => new Date(0)), expect: accept },
  {
    name: 'functions, symbols and undefined in an object',
    make: inPayload('o', () => ({ f: () => 1, s: Symbol('s'), u: undefined, keep: 1 })),
    expect: accept,
  },
  {
    name: 'functions, symbols and undefined in an array',
    make: inPayload('a', () => [() => 1, Symbol('s'), undefined, 1]),
    expect: accept,
  },
  { name: 'a sparse array', make: inPayload('a', () => [1, , 3]), expect: accept }, // eslint-disable-line no-sparse-arrays
  { name: 'Map, Set and WeakMap values', make: inPayload('c', () => [new Map([[1, 2]]), new Set([1]), new WeakMap()]), expect: accept },
  {
    name: 'typed arrays, ArrayBuffer and Buffer',
    make: inPayload('b', () => [new Uint8Array([1, 2]), new Float64Array([0.5]), new ArrayBuffer(4), Buffer.from('hi')]),
    expect: accept,
  },
  { name: 'a RegExp, an Error and a Promise', make: inPayload('x', () => [/re/g, new Error('e'), Promise.resolve(1)]), expect: accept },
  { name: 'boxed primitives', make: inPayload('x', () => [new String('s'), new Number(1), new Boolean(false)]), expect: accept },
  { name: 'the payload has a toJSON that returns an object', make: asPayload(() => ({ toJSON: () => ({ a: 1 }) })), expect: accept },
  { name: 'the payload has a toJSON that returns a string', make: asPayload(() => ({ toJSON: () => 'flat' })), expect: rejectPayload },
  { name: 'the payload is a Date', make: asPayload(() => new Date(0)), expect: rejectPayload },
  { name: 'the payload is a Buffer', make: asPayload(() => Buffer.from('hi')), expect: rejectPayload },
  { name: 'a toJSON that returns undefined', make: inPayload('x', () => ({ toJSON: () => undefined })), expect: accept },
  { name: 'a value whose toJSON returns a string', make: inPayload('x', () => ({ toJSON: () => 'flat' })), expect: accept },
  {
    name: 'a Date subclass with its own toJSON',
    make: inPayload(
      'd',
      () =>
        new (class extends Date {
          override toJSON() {
            return 'custom'
          }
        })(0),
    ),
    expect: accept,
  },
  {
    name: 'a shared (not circular) object twice',
    make: inPayload('pair', () => {
      const o = { v: 1 }
      return [o, o]
    }),
    expect: accept,
  },
  {
    name: 'an own "__proto__" key in the payload',
    make: asPayload(() => JSON.parse('{"__proto__":{"polluted":"yes"},"ok":1}')),
    expect: accept,
  },
  {
    name: 'keys named constructor, toString and hasOwnProperty',
    make: asPayload(() => ({ constructor: 'c', toString: 's', hasOwnProperty: 1, toJSON: 'not a function' })),
    expect: accept,
  },
  { name: 'lone surrogates in keys and values', make: inPayload('\ud800key', () => ['\udc00', 'a\ud83d', '\ud83d\ude00']), expect: accept },
  {
    name: 'control characters, NUL, BOM and bidi overrides',
    make: inPayload('s', () => '\u0000\u0001\u001f\ufeff\u202e\u2028\u2029"\\</script>'),
    expect: accept,
  },
  { name: 'an empty key and a 1,000-character key', make: inPayload('', () => ({ ['k'.repeat(1_000)]: 1 })), expect: accept },
  { name: 'objects nested 100 deep', make: inPayload('deep', () => nested(100, 'leaf')), expect: accept },

  // Sizes: the 32 KB limit is UTF-8 bytes of the message as sent.
  { name: 'a 1 MB string', make: inPayload('big', () => 'x'.repeat(1024 * 1024)), expect: tooLarge },
  { name: 'a 1 MB key', make: inPayload('k'.repeat(1024 * 1024), () => 1), expect: tooLarge },
  { name: '10,000 emoji (20,000 UTF-16 units, 40,000 UTF-8 bytes)', make: inPayload('e', () => '😀'.repeat(10_000)), expect: tooLarge },
  { name: '6,000 lone surrogates (6 bytes each once escaped)', make: inPayload('s', () => '\ud800'.repeat(6_000)), expect: tooLarge },
  { name: 'an array of 100,000 numbers', make: inPayload('a', () => Array.from({ length: 100_000 }, (_, i) => i)), expect: tooLarge },
  // Refused as soon as they are known to be too large, not after being serialized in full (issue 11, item 5).
  { name: 'a 10 MB Buffer', make: inPayload('buf', () => Buffer.alloc(10 * 1024 * 1024)), expect: tooLarge },
  { name: 'a 10 MB Uint8Array', make: inPayload('u8', () => new Uint8Array(10 * 1024 * 1024)), expect: tooLarge },
  { name: 'a 10 MB string as userId', make: set('userId', () => 'u'.repeat(10 * 1024 * 1024)), expect: tooLarge },
  {
    name: 'an object of 100,000 fields',
    make: inPayload('o', () => Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))),
    expect: tooLarge,
  },
  { name: 'a string of 40,000 characters nested 50 deep', make: inPayload('deep', () => nested(50, 'x'.repeat(40_000))), expect: tooLarge },
  { name: 'exactly 32 KB on the wire', make: sizedTo(0), expect: accept },
  { name: 'one byte over 32 KB on the wire', make: sizedTo(1), expect: tooLarge },
]
