/**
 * A multi-tenant app: one client per write key, created on first use and closed on shutdown.
 * An idle client holds no timer and no socket, so thousands of tenants fit in one process.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/multi-tenant.js
 */
import { Analytics, type AnalyticsOptions } from 'eventrail'

/** One {@link Analytics} per write key, all with the same options. */
export class AnalyticsRegistry {
  readonly #clients = new Map<string, Analytics>()
  readonly #options: AnalyticsOptions
  #closed = false

  constructor(options: AnalyticsOptions = {}) {
    this.#options = options
  }

  /** The client of a tenant, created on first use. */
  get(writeKey: string): Analytics {
    if (this.#closed) throw new Error('the registry is closed')
    let client = this.#clients.get(writeKey)
    if (client === undefined) {
      client = new Analytics(writeKey, this.#options)
      this.#clients.set(writeKey, client)
    }
    return client
  }

  /** How many tenants have a client. */
  get size(): number {
    return this.#clients.size
  }

  /** Closes every client and waits until each has sent what it holds (or `timeoutMs` has passed). */
  async close(timeoutMs = 5_000): Promise<void> {
    this.#closed = true
    const clients = [...this.#clients.values()]
    this.#clients.clear()
    // allSettled: one tenant's failure must not keep the others from draining.
    await Promise.allSettled(clients.map((client) => client.closeAndFlush({ timeout: timeoutMs })))
  }
}

const registry = new AnalyticsRegistry({
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  errorHandler: (err) => console.error(`analytics: ${err.message}`),
})

// Each request carries its tenant; the tenant's write key selects the client.
const tenants = (process.env.EVENTRAIL_TENANT_KEYS ?? 'TENANT_A_KEY,TENANT_B_KEY,TENANT_C_KEY').split(',')
tenants.forEach((writeKey, i) => {
  for (let n = 1; n <= i + 1; n++) {
    registry.get(writeKey).track({ userId: `user-${n}`, event: 'Document Saved', properties: { n } })
  }
})
console.log(`${registry.size} tenants`)

// On shutdown (here: at the end of the script; in a server: on SIGTERM), drain every tenant.
process.once('SIGTERM', () => void registry.close())
await registry.close()
console.log('every tenant drained')
