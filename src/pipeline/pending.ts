import { setUnrefTimeout } from '../timers'

/**
 * Messages whose plugins are still at work (a plugin returned a promise): `flush()` and
 * `closeAndFlush()` wait for those started before them. The promises tracked never reject.
 */
export class PendingMessages {
  readonly #pending = new Set<Promise<unknown>>()

  /** How many messages are waiting for a plugin. */
  get size(): number {
    return this.#pending.size
  }

  /** Tracks a message's work until it settles. */
  add(work: Promise<unknown>): void {
    this.#pending.add(work)
    const done = (): void => {
      this.#pending.delete(work)
    }
    work.then(done, done)
  }

  /**
   * Resolves when every message pending now has left the plugins, or after `timeoutMs` (whichever
   * comes first); `undefined` when none is pending, so that a flush does not wait a tick for nothing.
   */
  settled(timeoutMs?: number): Promise<void> | undefined {
    if (this.#pending.size === 0) return undefined
    const all = Promise.all([...this.#pending]).then(() => undefined)
    if (timeoutMs === undefined) return all
    return new Promise((resolve) => {
      const timer = setUnrefTimeout(resolve, timeoutMs)
      void all.then(() => {
        timer.cancel()
        resolve()
      })
    })
  }
}
