/**
 * An Express app that tracks on a route and drains the client when the platform stops it (SIGTERM).
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/express-server.js
 *   curl -X POST http://127.0.0.1:3000/orders -H 'Content-Type: application/json' -d '{"userId":"u1","total":42}'
 *   kill -TERM <pid>                                   every tracked order is sent before the process exits
 */
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { Analytics } from 'eventrail'

// One instance for the whole process, created at start-up.
const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  // A failed delivery is logged, never thrown into a request handler.
  errorHandler: (err) => console.error(`analytics: ${err.message}`),
})

const app = express()
app.use(express.json())

app.post('/orders', (req, res) => {
  const { userId, total } = (req.body ?? {}) as { userId?: unknown; total?: unknown }
  if (typeof userId !== 'string' || typeof total !== 'number') {
    res.status(400).json({ error: '"userId" (a string) and "total" (a number) are required' })
    return
  }
  const orderId = randomUUID()
  // track() validates and queues, then returns: the response never waits for the analytics service.
  analytics.track({ userId, event: 'Order Completed', properties: { orderId, total } })
  res.status(201).json({ orderId })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})

// Kubernetes, ECS, Cloud Run and systemd stop a process with SIGTERM and kill it a little later:
// stop taking requests, send what is queued, then let the process end.
process.once('SIGTERM', () => {
  server.close()
  void analytics.closeAndFlush({ timeout: 5_000 }).then(() => {
    const { sent, failed } = analytics.stats()
    console.log(`drained: ${sent} sent, ${failed} failed`)
  })
})
