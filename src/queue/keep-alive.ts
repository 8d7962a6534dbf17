/**
 * With the `waitUntil` option (Vercel, Cloudflare Workers): after the caller's synchronous run of
 * calls, the messages it queued are flushed and the promise of that flush is handed to the
 * platform, which keeps the invocation alive until every one of them has an outcome. One hand-off
 * per run of calls, however many messages it queued.
 */
export class KeepAlive {
  readonly #waitUntil: (promise: Promise<unknown>) => void
  readonly #flush: () => Promise<unknown>
  readonly #report: (err: unknown) => void
  #pending = false

  constructor(waitUntil: (promise: Promise<unknown>) => void, flush: () => Promise<unknown>, report: (err: unknown) => void) {
    this.#waitUntil = waitUntil
    this.#flush = flush
    this.#report = report
  }

  /** Whether a hand-off is already armed for this run of calls. */
  get pending(): boolean {
    return this.#pending
  }

  /** Hands the platform a flush once the current run of calls ends. A `waitUntil` that throws is reported. */
  arm(): void {
    this.#pending = true
    void Promise.resolve().then(() => {
      this.#pending = false
      try {
        this.#waitUntil(this.#flush().then(() => undefined))
      } catch (err) {
        this.#report(err)
      }
    })
  }
}
