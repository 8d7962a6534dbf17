import { Analytics, type AnalyticsOptions } from '../../src'
import { startFaultServer, type Fault, type FaultServer } from './fault-server'

/**
 * Fault servers and clients for one test file, all closed after each test: `server(decide)` starts
 * one on 127.0.0.1, `client(server, options)` makes a client of it with fast retries (the write key
 * `writeKey`). Call at the top level of the file: it registers the `afterEach`.
 */
export function faultSession(writeKey: string): {
  server: (decide?: (index: number, path: string) => Fault) => Promise<FaultServer>
  client: (server: FaultServer, options?: AnalyticsOptions) => Analytics
} {
  let servers: FaultServer[] = []
  let clients: Analytics[] = []
  afterEach(async () => {
    for (const client of clients) await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
    clients = []
    for (const server of servers) await server.close()
    servers = []
  })
  return {
    async server(decide) {
      const s = await startFaultServer(decide)
      servers.push(s)
      return s
    },
    client(s, options = {}) {
      const analytics = new Analytics(writeKey, { host: s.url, retryDelay: 1, maxRetryDelay: 5, ...options })
      clients.push(analytics)
      return analytics
    },
  }
}
