/** A listener of event `K` of the event map `E`. */
export type Listener<E, K extends keyof E> = (payload: E[K]) => void

/**
 * A small typed event emitter over an event map `E` (event name → payload). Unlike Node's, an
 * `error` event without listeners throws nothing, and a listener that throws cannot disturb the
 * emitter's owner or the other listeners: what it throws goes to `listenerThrowSink`, not lost.
 * It holds nothing until the first listener comes. The client's `on()` and the collector's are
 * each one of these.
 */
export class Emitter<E> {
  #listeners: Map<keyof E, Set<Listener<E, never>>> | undefined
  /** Where a listener's throw is reported; the owner sets it (an object, not a closure: nothing per instance). */
  listenerThrowSink: { listenerThrew(err: unknown, event: keyof E): void } | undefined

  /** Calls `listener` with each payload of `event`. */
  on<K extends keyof E>(event: K, listener: Listener<E, K>): void {
    this.#listeners ??= new Map()
    let set = this.#listeners.get(event)
    if (set === undefined) this.#listeners.set(event, (set = new Set()))
    set.add(listener)
  }

  /** Stops calling `listener` for `event`. */
  off<K extends keyof E>(event: K, listener: Listener<E, K>): void {
    this.#listeners?.get(event)?.delete(listener)
  }

  /** Whether anyone listens to `event`. */
  has(event: keyof E): boolean {
    return (this.#listeners?.get(event)?.size ?? 0) > 0
  }

  /** Calls every listener of `event` with `payload`, in the order they were added. */
  emit<K extends keyof E>(event: K, payload: E[K]): void {
    const set = this.#listeners?.get(event)
    if (set === undefined) return
    for (const listener of set) {
      try {
        ;(listener as Listener<E, K>)(payload)
      } catch (err) {
        this.listenerThrowSink?.listenerThrew(err, event)
      }
    }
  }
}
