import { Analytics, ValidationError } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'

// Issue 30: "A host ending in /v1/v1 is refused with the suggestion …/v1, which is refused too."
// The host a refusal suggests is one the constructor accepts: every trailing /v1 (and endpoint)
// segment goes, and the suggested host delivers to the service's /v1/batch.

let server: FaultServer
beforeAll(async () => {
  server = await startFaultServer()
})
afterAll(async () => {
  await server.close()
})

function suggestionFor(host: string): { end: string; bare: string } {
  let error: unknown
  try {
    new Analytics('k', { host })
  } catch (err) {
    error = err
  }
  expect(error).toBeInstanceOf(ValidationError)
  const match = /must not end in "([^"]*)": .*; write "([^"]*)"$/.exec((error as Error).message)
  expect(match).not.toBeNull()
  return { end: (match as RegExpExecArray)[1], bare: (match as RegExpExecArray)[2] }
}

describe('the host a refusal suggests is accepted', () => {
  const base = (): string => server.url
  it.each([
    ['/v1/v1', '/v1/v1'],
    ['/v1/v1/', '/v1/v1'],
    ['/v1/v1/v1/batch', '/v1/v1/v1/batch'],
    ['/v1/batch/v1', '/v1/batch/v1'],
    ['/V1/Track/v1/', '/V1/Track/v1'],
    ['//v1//v1', '//v1//v1'],
    ['/prefix/v1/v1', '/v1/v1'],
  ])('%s: every trailing /v1 segment goes, and the suggestion sends to /v1/batch', async (path, end) => {
    const suggestion = suggestionFor(base() + path)
    expect(suggestion.end).toBe(end)
    expect(suggestion.bare).toBe(base() + path.slice(0, path.length - (path.endsWith('/') ? 1 : 0) - end.length))
    const analytics = new Analytics('k', { host: suggestion.bare })
    const before = server.requests.length
    await analytics.deliver.track({ userId: 'u', event: 'Suggested' })
    await analytics.closeAndFlush()
    expect(server.requests.slice(before).map((r) => r.path)).toEqual([path.startsWith('/prefix') ? '/prefix/v1/batch' : '/v1/batch'])
  })

  it('a host name that is only "v1" is not a path: accepted', () => {
    expect(() => new Analytics('k', { host: 'https://v1', enable: false })).not.toThrow()
    expect(() => new Analytics('k', { host: 'https://v1.example', enable: false })).not.toThrow()
  })
})
