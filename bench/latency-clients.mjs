// The clients of `npm run bench:latency`, each driven the same way: create it with flushAt 20 and
// otherwise its own defaults, call the six message methods with a callback per message, flush.
// `send(type, message, callback)` calls the method; `flush()` starts sending what is queued.

import { join } from 'node:path'

/** Creates a client by name: eventrail (the built package), analytics-node@6 or @segment/analytics-node@3. */
export async function createClient(name, { host, root }) {
  if (name === 'eventrail') {
    const { Analytics } = await import(join(root, 'dist', 'index.js'))
    const client = new Analytics('bench-write-key', { host, flushAt: 20, errorHandler: () => {} })
    return {
      send: (type, message, callback) => client[type](message, callback),
      flush: () => client.flush().catch(() => undefined),
      retries: () => client.stats().retried,
    }
  }
  if (name === 'analytics-node@6') {
    const Legacy = (await import('analytics-node')).default
    const client = new Legacy('bench-write-key', { host, flushAt: 20, errorHandler: () => {} })
    return {
      send: (type, message, callback) => client[type](message, callback),
      // Its flush() sends one batch of flushAt: call it until the queue is empty.
      flush: () => {
        while (client.queue.length > 0) client.flush()
      },
      retries: () => undefined,
    }
  }
  if (name === '@segment/analytics-node@3') {
    const { Analytics } = await import('@segment/analytics-node')
    const client = new Analytics({ writeKey: 'bench-write-key', host, flushAt: 20 })
    client.on('error', () => {})
    return {
      send: (type, message, callback) => client[type](message, callback),
      flush: () => client.flush().catch(() => undefined),
      retries: () => undefined,
    }
  }
  throw new Error(`unknown client ${name}`)
}

const BATCHABLE = ['identify', 'track', 'page', 'screen', 'group']

/** The type of message `i` of a mix: 'track-only', 'alias-1-in-100' or 'alias-1-in-6' (the six types in turn). */
export function typeOf(mix, i) {
  if (mix === 'alias-1-in-6') return i % 6 === 5 ? 'alias' : BATCHABLE[i % 6]
  if (mix === 'alias-1-in-100') return i % 100 === 99 ? 'alias' : 'track'
  return 'track'
}

/** Message `i` of the given type, with a unique messageId so the sink can count it. */
export function messageOf(type, i) {
  const base = { userId: `user-${i % 500}`, messageId: `lat-${i}` }
  switch (type) {
    case 'alias':
      return { ...base, previousId: `anon-${i}` }
    case 'track':
      return { ...base, event: 'Order Completed', properties: { orderId: `o-${i}`, total: 42.5, currency: 'EUR', items: 3 } }
    case 'identify':
      return { ...base, traits: { plan: 'pro', email: `user${i}@example.com` } }
    case 'group':
      return { ...base, groupId: `g-${i % 20}`, traits: { name: 'Acme' } }
    default:
      return { ...base, name: 'Checkout', properties: { path: '/checkout' } }
  }
}
