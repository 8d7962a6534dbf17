import type * as Crypto from 'node:crypto'
import { EventrailError } from '../errors'
import { loadNodeBuiltin } from '../runtime'

/** Derives a message id from one line of a source: its text and its position. */
export type LineIdHasher = (line: string, position: number) => string

type HashFn = (algorithm: string, data: string, encoding: 'hex') => string

/**
 * Loads `node:crypto` (on the first import, not when the package is imported: it costs ~5 ms of a
 * cold start) and returns a hasher: the SHA-256 of the position and the line's text (its UTF-8
 * bytes), shaped as a UUID. The same line at the same position gets the same id in every run, so a
 * file imported twice (or resumed) sends the same ids and the service can de-duplicate; two equal
 * lines at different positions are two messages and get two ids.
 */
export async function loadLineIdHasher(): Promise<LineIdHasher> {
  // Loaded at run time, named where no bundler looks: a Workers or Edge build of the package
  // (which includes importMessages) must not try to resolve a Node built-in.
  const crypto = await loadNodeBuiltin<typeof Crypto>('node:crypto')
  if (crypto === undefined) {
    throw new EventrailError('import: deriving message ids needs node:crypto, which this runtime lacks; give every message a messageId')
  }
  // crypto.hash (Node 20.12+) is one call; createHash builds a Hash object per line: 2.5x the time.
  const hash: HashFn =
    typeof (crypto as { hash?: unknown }).hash === 'function'
      ? (crypto as unknown as { hash: HashFn }).hash
      : (algorithm, data, encoding) => crypto.createHash(algorithm).update(data).digest(encoding)
  return (line, position) => formatHexAsUuid(hash('sha256', `eventrail-import:${position}:${line}`, 'hex'))
}

const VARIANT = '89ab'

/**
 * Formats the first 128 bits of a hex hash as a UUID of version 8 (RFC 9562: a custom, here
 * name-based, layout), variant 10: `xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx`. Pure.
 */
export function formatHexAsUuid(hex: string): string {
  const variant = VARIANT[parseInt(hex[16], 16) & 3]
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
