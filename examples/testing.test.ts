/**
 * Testing an app that uses eventrail: give the client the recording fetch of `eventrail/testing`,
 * exercise the app, `await analytics.flush()`, and assert on the messages exactly as they would
 * have gone on the wire. No network, no mocks of eventrail, no open handles.
 *
 *   npx jest examples/testing.test.ts     (node --test works the same way with node:assert)
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import express from 'express'
import { Analytics } from 'eventrail'
import { Recorder } from 'eventrail/testing'

// ---- The app under test (in a real project it lives in its own module and takes the client
// as a parameter, so that tests can hand it one that records). ----

interface AppEvents {
  'Signed Up': { plan: 'free' | 'pro' }
  'Order Completed': { orderId: string; total: number }
}

function createApp(analytics: Analytics<AppEvents, { email: string }>): express.Express {
  const app = express()
  app.use(express.json())
  app.post('/signup', (req, res) => {
    const { userId, email, plan } = req.body as { userId: string; email: string; plan: 'free' | 'pro' }
    analytics.identify({ userId, traits: { email } })
    analytics.track({ userId, event: 'Signed Up', properties: { plan } })
    res.sendStatus(201)
  })
  app.post('/orders', (req, res) => {
    const { userId, orderId, total } = req.body as { userId: string; orderId: string; total: number }
    if (total > 0) analytics.track({ userId, event: 'Order Completed', properties: { orderId, total } })
    res.sendStatus(total > 0 ? 201 : 400)
  })
  return app
}

// ---- The tests. ----

const recorder = new Recorder<AppEvents, { email: string }>()
const analytics = new Analytics<AppEvents, { email: string }>('test-write-key', { fetch: recorder.fetch })
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createApp(analytics).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await analytics.closeAndFlush()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => recorder.clear())

function post(path: string, body: object): Promise<Response> {
  return fetch(baseUrl + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
}

describe('analytics of the shop app', () => {
  it('identifies a new user and tracks the sign-up with its plan', async () => {
    await post('/signup', { userId: 'u1', email: 'ada@example.com', plan: 'pro' })
    await analytics.flush()

    expect(recorder.ofType('identify')).toEqual([expect.objectContaining({ userId: 'u1', traits: { email: 'ada@example.com' } })])
    const [signUp] = recorder.tracks('Signed Up')
    expect(signUp.userId).toBe('u1')
    expect(signUp.properties).toEqual({ plan: 'pro' })
    // What went on the wire carries what eventrail adds to every message.
    expect(signUp.context.library.name).toBe('eventrail')
    expect(signUp.messageId).toEqual(expect.any(String))
  })

  it('tracks a completed order with its total', async () => {
    await post('/orders', { userId: 'u2', orderId: 'o-1', total: 42 })
    await analytics.flush()

    expect(recorder.tracks('Order Completed').map((m) => m.properties)).toEqual([{ orderId: 'o-1', total: 42 }])
  })

  it('tracks nothing for a refused order', async () => {
    const response = await post('/orders', { userId: 'u3', orderId: 'o-2', total: 0 })
    await analytics.flush()

    expect(response.status).toBe(400)
    expect(recorder.messages).toEqual([])
  })
})
