import { EventrailError } from '../core/errors'
import { ownField } from '../core/own-options'
import type { RecordStore } from './store'
import { counted } from './terminal-text'
import type { MessageRecord } from './types'

/** Options of `collector.waitForMessages`. */
export interface WaitOptions {
  /**
   * Milliseconds to wait before the promise rejects.
   * @defaultValue 5000
   */
  timeout?: number
}

const DEFAULT_TIMEOUT_MS = 5_000

/**
 * Waits until the store holds at least `count` message records. Rejects, saying how many came,
 * after `timeout` ms or when `closed` fires. The timer is unref'd: a wait never keeps a process alive.
 */
export class MessageWaiter {
  readonly #store: RecordStore
  readonly #pending = new Set<(error?: Error) => void>()

  constructor(store: RecordStore) {
    this.#store = store
  }

  wait(count: number, options: WaitOptions = {}): Promise<readonly MessageRecord[]> {
    // Own fields only: an inherited `timeout` (a polluted Object.prototype) is not the caller's.
    const timeout =
      (typeof options === 'object' && options !== null ? (ownField(options, 'timeout') as number | undefined) : undefined) ??
      DEFAULT_TIMEOUT_MS
    if (!Number.isSafeInteger(count) || count < 0) {
      return Promise.reject(new EventrailError(`waitForMessages: "count" must be an integer of at least 0 (got ${String(count)})`))
    }
    const store = this.#store
    if (store.messages.length >= count) return Promise.resolve(store.messages)
    return new Promise((resolve, reject) => {
      const finish = (error?: Error): void => {
        clearTimeout(timer)
        store.off('message', onMessage)
        this.#pending.delete(finish)
        if (error === undefined) resolve(store.messages)
        else reject(error)
      }
      const onMessage = (): void => {
        if (store.messages.length >= count) finish()
      }
      const timer = setTimeout(() => finish(this.#shortfall(count, `within ${timeout} ms`)), timeout)
      timer.unref()
      store.on('message', onMessage)
      this.#pending.add(finish)
    })
  }

  /** Rejects every pending wait: the collector is closing. */
  cancelAll(): void {
    for (const finish of [...this.#pending]) finish(this.#shortfall(0, 'before the collector closed'))
  }

  #shortfall(count: number, when: string): EventrailError {
    const wanted = count === 0 ? 'the awaited messages' : counted(count, 'message')
    return new EventrailError(`waitForMessages: ${wanted} did not arrive ${when} (${this.#store.messages.length} held)`)
  }
}
