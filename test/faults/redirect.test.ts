import { Analytics, DeliveryError, type FetchLike } from '../../src'
import { startFaultServer, type FaultServer } from './fault-server'
import { Outcomes, trackMessage } from './outcomes'

// A redirect is never followed: neither the write key (Authorization) nor the batch reaches the
// other origin, and the messages fail with an error naming the status and where it pointed.

let service: FaultServer
let elsewhere: FaultServer

afterEach(async () => {
  await service.close()
  await elsewhere.close()
})

const globalFetch: FetchLike = (url, init) => (globalThis.fetch as unknown as FetchLike)(url, init)

describe.each<[string, FetchLike | undefined]>([
  ['node-fetch (the default)', undefined],
  ['the global fetch', globalFetch],
])('redirects with %s', (_name, fetch) => {
  it.each([301, 302, 303, 307, 308])('a %i is a failure, not followed and not retried', async (status) => {
    elsewhere = await startFaultServer()
    const location = `${elsewhere.url.replace('http://', 'http://user:secret@')}/v1/batch?token=abc#frag`
    service = await startFaultServer(() => ({ kind: 'status', status, headers: { Location: location } }))
    const analytics = new Analytics('write-key-secret', { host: service.url, fetch, errorHandler: () => undefined })
    const outcomes = new Outcomes()
    for (let i = 0; i < 20; i++) analytics.track(trackMessage(`m${i}`), outcomes.callback(`m${i}`))
    await analytics.flush()

    expect(elsewhere.arrivals).toBe(0)
    expect(outcomes.notExactlyOnce()).toEqual([])
    expect(outcomes.errorNames()).toEqual({ DeliveryError: 20 })
    const error = outcomes.get('m0')?.error as DeliveryError
    expect(error.status).toBe(status)
    expect(error.message).toBe(
      `${service.url}/v1/batch: the service answered ${status}, a redirect to "${elsewhere.url}/v1/batch", which is not followed (the write key and the messages go only to the configured host: check the host option)`,
    )
    expect(error.message).not.toMatch(/secret|token|frag/)
    // One attempt per request: a redirect would only be answered again.
    expect(service.requests.every((r) => r.status === status)).toBe(true)
    expect(analytics.stats()).toMatchObject({ sent: 0, failed: 20, retried: 0 })
    await analytics.closeAndFlush()
  })
})

it('a redirect without a Location says so', async () => {
  elsewhere = await startFaultServer()
  service = await startFaultServer(() => ({ kind: 'status', status: 302 }))
  const analytics = new Analytics('k', { host: service.url, errorHandler: () => undefined })
  const outcome = await analytics.deliver.track(trackMessage('m1'))
  expect(outcome.delivered).toBe(false)
  expect(outcome.delivered === false && outcome.error.message).toContain(
    'the service answered 302, a redirect with no Location, which is not followed',
  )
  await analytics.closeAndFlush()
})
