import * as http from 'node:http'
import { Analytics, DeliveryError, ServiceUnavailableError } from '../../src'

// Every DeliveryError names the URL it used and, when the service said why, the beginning of
// what it said: one line, at most 200 characters, quoted.

let server: http.Server
let url: string

async function serve(status: number, body: string | Buffer): Promise<void> {
  server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

afterEach(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

async function errorOf(options: Record<string, unknown> = {}): Promise<DeliveryError> {
  const analytics = new Analytics('k', { host: url, errorHandler: () => undefined, ...options })
  const outcome = await analytics.deliver.track({ userId: 'u', event: 'e' })
  await analytics.closeAndFlush()
  if (outcome.delivered) throw new Error('expected a failure')
  return outcome.error as DeliveryError
}

it('a 404 names the URL and what the service said', async () => {
  await serve(404, 'no endpoint /v1/batch here: check the host option\n')
  const error = await errorOf()
  expect(error.message).toBe(
    `${url}/v1/batch: the service answered 404 ("no endpoint /v1/batch here: check the host option"), which is not retried`,
  )
  expect(error.status).toBe(404)
})

it('a long or hostile body is cut to one line of 200 characters', async () => {
  await serve(400, 'bad\r\n\u0007request ' + 'x'.repeat(5_000))
  const error = await errorOf()
  const quoted = /\((".*")\), which is not retried$/.exec(error.message)?.[1] as string
  const said = JSON.parse(quoted) as string
  expect(said.startsWith('bad request xxx')).toBe(true)
  expect(said.length).toBe(201)
  expect(said.endsWith('…')).toBe(true)
})

it('the outage error carries the last answer and its body', async () => {
  await serve(503, '{"error":"maintenance until 12:00"}')
  const error = await errorOf()
  expect(error).toBeInstanceOf(ServiceUnavailableError)
  expect(error.message).toContain(
    `${url}/v1/batch: the service is unavailable (last: the service answered 503 ("{\\"error\\":\\"maintenance until 12:00\\"}"))`,
  )
}, 20_000)

it('retries running out name the last status and body', async () => {
  await serve(500, 'internal error')
  const error = await errorOf({ maxRetries: 1, retryDelay: 1 })
  expect(error.message).toBe(`${url}/v1/batch: the service answered 500 ("internal error") (gave up after 2 attempts)`)
})

it('one attempt is "1 attempt", not "1 attempts" (issue 30)', async () => {
  await serve(500, 'internal error')
  const error = await errorOf({ maxRetries: 0, retryDelay: 1 })
  expect(error.message).toBe(`${url}/v1/batch: the service answered 500 ("internal error") (gave up after 1 attempt)`)
})
