/**
 * Emits a process warning once per key, where the runtime has `process.emitWarning` (Node, Bun,
 * Deno): it goes to stderr by default and to `process.on('warning')` listeners, and
 * `--no-warnings` silences it. Elsewhere (Workers, the Edge Runtime), nothing. Never throws.
 */
export function createWarnOnce(code: string): (key: string, message: string) => void {
  const warned = new Set<string>()
  return (key, message) => {
    if (warned.has(key)) return
    warned.add(key)
    try {
      const emit = (globalThis as { process?: { emitWarning?: (message: string, options: { code: string }) => void } }).process?.emitWarning
      if (typeof emit === 'function') emit.call(globalThis.process, message, { code })
    } catch {
      // A warning that cannot be emitted is not the caller's problem.
    }
  }
}
