import type { FetchLike } from '../../src'

/** One request as the fetch received it. */
export interface RecordedRequest {
  url: string
  headers: Record<string, string>
  raw: string
  body: any
}

/** A fetch that records every request and answers with the status `respond` picks (200 by default). */
export interface RecordingFetch extends FetchLike {
  requests: RecordedRequest[]
  /** The parsed bodies of `/v1/batch` requests. */
  readonly bodies: any[]
  /** Every message sent, in order: batch items and single-message bodies. */
  readonly messages: any[]
}

export function recordingFetch(respond: (request: RecordedRequest, index: number) => number | Error = () => 200): RecordingFetch {
  const requests: RecordedRequest[] = []
  const fetch = (async (url: string, init: { headers: Record<string, string>; body: string | Uint8Array }) => {
    const raw = typeof init.body === 'string' ? init.body : Buffer.from(init.body).toString('utf8')
    const request: RecordedRequest = { url, headers: init.headers, raw, body: JSON.parse(raw) }
    requests.push(request)
    const outcome = respond(request, requests.length - 1)
    if (outcome instanceof Error) throw outcome
    return { status: outcome, headers: { get: () => null }, arrayBuffer: async () => new ArrayBuffer(0) }
  }) as unknown as RecordingFetch
  fetch.requests = requests
  Object.defineProperty(fetch, 'bodies', { get: () => requests.filter((r) => r.url.endsWith('/v1/batch')).map((r) => r.body) })
  Object.defineProperty(fetch, 'messages', {
    get: () => requests.flatMap((r) => (r.url.endsWith('/v1/batch') ? r.body.batch : [r.body])),
  })
  return fetch
}
