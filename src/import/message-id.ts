/** Derives a message id from one line of a source: its bytes and its position. */
export type LineIdHasher = (line: Uint8Array | string, position: number) => string

/**
 * Loads `node:crypto` (on the first import, not when the package is imported: it costs ~5 ms of a
 * cold start) and returns a hasher: the SHA-256 of the position and the line's bytes, shaped as a
 * UUID. The same line at the same position gets the same id in every run, so a file imported twice
 * (or resumed) sends the same ids and the service can de-duplicate; two equal lines at different
 * positions are two messages and get two ids.
 */
export async function loadLineIdHasher(): Promise<LineIdHasher> {
  const { createHash } = await import('node:crypto')
  return (line, position) => formatHashAsUuid(createHash('sha256').update(`eventrail-import:${position}:`).update(line).digest())
}

/**
 * Formats the first 16 bytes of a hash as a UUID of version 8 (RFC 9562: a custom, here
 * name-based, layout), variant 10: `xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx`. Pure.
 */
export function formatHashAsUuid(digest: Uint8Array): string {
  let hex = ''
  for (let i = 0; i < 16; i++) {
    let byte = digest[i]
    if (i === 6) byte = (byte & 0x0f) | 0x80
    else if (i === 8) byte = (byte & 0x3f) | 0x80
    hex += (byte < 16 ? '0' : '') + byte.toString(16)
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
