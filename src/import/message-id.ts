import type * as Crypto from 'node:crypto'
import { EventrailError } from '../core/errors'
import { loadNodeBuiltin } from '../platform/runtime'

/** Derives a message id from one line of a source: its text and its position. */
export type LineIdHasher = (line: string, position: number) => string

type HashFn = (algorithm: string, data: string, encoding: 'hex') => string

/**
 * Loads `node:crypto` (on the first import, not when the package is imported: it costs ~5 ms of a
 * cold start) and returns a hasher: the SHA-256 of the line's text (its UTF-8 bytes), shaped as a
 * UUID, with the position mixed into its last 48 bits. The same line at the same position gets the
 * same id in every run, so a file imported twice (or resumed) sends the same ids and the service
 * can de-duplicate; two equal lines at different positions are two messages and get two ids.
 * Where the runtime has no `node:crypto` (Workers, the Edge Runtime), the hasher throws when a line
 * needs an id: messages given as objects, or lines with their own `messageId`, import there.
 */
export async function loadLineIdHasher(): Promise<LineIdHasher> {
  // Loaded at run time, named where no bundler looks: a Workers or Edge build of the package
  // (which includes importMessages) must not try to resolve a Node built-in.
  const crypto = await loadNodeBuiltin<typeof Crypto>('node:crypto')
  // Only lines of text without a messageId need it: messages given as objects import anywhere.
  if (crypto === undefined)
    return () => {
      throw new EventrailError('import: deriving message ids needs node:crypto, which this runtime lacks; give every message a messageId')
    }
  // crypto.hash (Node 20.12+) is one call; createHash builds a Hash object per line: 2.5x the time.
  // The line is hashed as it is (a prefix would cost a copy of it), the position mixed in after.
  const hash: HashFn =
    typeof (crypto as { hash?: unknown }).hash === 'function'
      ? (crypto as unknown as { hash: HashFn }).hash
      : (algorithm, data, encoding) => crypto.createHash(algorithm).update(data).digest(encoding)
  return (line, position) => formatHexAsUuid(hash('sha256', line, 'hex'), position)
}

const VARIANT = '89ab'
const LOW_24 = 0x1000000
// Two hex digits of every byte: a 24-bit number in hex is three lookups, not a toString(16).
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/**
 * Formats the first 128 bits of a hex hash as a UUID of version 8 (RFC 9562: a custom, here
 * name-based, layout), variant 10: `xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx`, its last 48 bits
 * XORed with `position` (0 to 2^48 - 1): for one hash, every position gives its own id. Pure.
 */
export function formatHexAsUuid(hex: string, position = 0): string {
  const variant = VARIANT[parseInt(hex[16], 16) & 3]
  const low = parseInt(hex.slice(26, 32), 16) ^ (position % LOW_24)
  const high = position < LOW_24 ? hex.slice(20, 26) : hex24(parseInt(hex.slice(20, 26), 16) ^ (Math.floor(position / LOW_24) % LOW_24))
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${high}${hex24(low)}`
}

function hex24(value: number): string {
  return HEX_BYTES[value >>> 16] + HEX_BYTES[(value >>> 8) & 0xff] + HEX_BYTES[value & 0xff]
}
