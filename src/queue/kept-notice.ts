/**
 * A message kept in the disk spool while the service is down: its final outcome (its callback)
 * comes once it is delivered, possibly by another process; a caller of `deliver.*` that cannot
 * wait that long is told earlier that the message is kept. The key is a registered symbol: the
 * spool (`dist/spool.cjs`) and the client share it without sharing a module.
 * @module
 */

const KEPT: unique symbol = Symbol.for('eventrail.kept') as never

type WithKept = { [KEPT]?: ((error: Error) => void) | undefined }

/** Marks `callback` (the library's own) to be told, once, that its message is kept on disk and waits for the service. */
export function onKept<F extends object>(callback: F, kept: (error: Error) => void): F {
  ;(callback as F & WithKept)[KEPT] = kept
  return callback
}

/** Tells a callback marked by {@link onKept} (once) that its message is kept on disk; `error` says why it waits. */
export function tellKept(callback: unknown, error: Error): void {
  if (typeof callback !== 'function') return
  const kept = (callback as WithKept)[KEPT]
  if (kept === undefined) return
  ;(callback as WithKept)[KEPT] = undefined
  kept(error)
}
