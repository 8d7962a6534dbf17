import { setUnrefTimeout } from '../platform/timers'

interface Held {
  readonly bytes: number
  readonly abandon: (timeoutMs: number) => void
  readonly done: Promise<void>
  readonly release: () => void
}

/**
 * Messages whose plugins are still at work (a plugin returned a promise). They count toward the
 * queue's bounds (by number, and by an estimate of their bytes); `flush()` and `closeAndFlush()`
 * wait for those held before them, and a close that times out gives up on them. Each ends here
 * once: released when its plugins let it go, or abandoned, never both.
 */
export class PendingMessages {
  readonly #held = new Set<Held>()
  #bytes = 0

  /** How many messages are waiting for a plugin. */
  get size(): number {
    return this.#held.size
  }

  /** The estimated bytes of the messages waiting for a plugin. */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Holds a message of about `bytes` until the returned function is called: it returns `true`
   * when the message was still held (its outcome is the caller's to give), `false` when it was
   * abandoned meanwhile (it has its outcome already). `abandon` gives it its outcome when a close
   * times out first.
   */
  hold(bytes: number, abandon: (timeoutMs: number) => void): () => boolean {
    let release!: () => void
    const done = new Promise<void>((resolve) => (release = resolve))
    const held: Held = { bytes, abandon, done, release }
    this.#held.add(held)
    this.#bytes += bytes
    return () => this.#drop(held)
  }

  /** Every message still held gets its outcome now, from its `abandon` (the close's timeout passed). */
  abandonAll(timeoutMs: number): void {
    for (const held of [...this.#held]) if (this.#drop(held)) held.abandon(timeoutMs)
  }

  /**
   * Resolves when every message held now has left the plugins, or after `timeoutMs` (whichever
   * comes first); `undefined` when none is held, so that a flush does not wait a tick for nothing.
   */
  settled(timeoutMs?: number): Promise<void> | undefined {
    if (this.#held.size === 0) return undefined
    const all = Promise.all([...this.#held].map((held) => held.done)).then(() => undefined)
    if (timeoutMs === undefined) return all
    return new Promise((resolve) => {
      const timer = setUnrefTimeout(resolve, timeoutMs)
      void all.then(() => {
        timer.cancel()
        resolve()
      })
    })
  }

  #drop(held: Held): boolean {
    if (!this.#held.delete(held)) return false
    this.#bytes -= held.bytes
    held.release()
    return true
  }
}
