let randomUUID: (() => string) | undefined

/**
 * A new message id: a random (version 4) UUID from the runtime's own generator.
 *
 * The generator is looked up on the first call, not at import: loading it costs ~5 ms of a cold
 * start (measured with `import('node:crypto')` on Node 20), which a process that never sends a
 * message should not pay. `globalThis.crypto` is the Web Crypto API that Node (20+), Bun and Deno
 * all have; its `randomUUID()` is the same generator as `node:crypto`'s.
 */
export function newMessageId(): string {
  if (randomUUID === undefined) {
    const crypto = globalThis.crypto
    randomUUID = () => crypto.randomUUID()
  }
  return randomUUID()
}
