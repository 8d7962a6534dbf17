import * as http from 'node:http'
import { gzipSync } from 'node:zlib'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'
import { basic, post, postStreaming } from './helpers'

const KB = 1024
let collector: Collector

beforeEach(async () => {
  collector = await createCollector({ writeKeys: ['test-key'], destinations: ['Amplitude', 'Mixpanel'] })
})

afterEach(async () => {
  await collector.close()
})

/** A track message whose JSON is exactly `bytes` long. */
function trackOfBytes(bytes: number): Record<string, unknown> {
  const base = { userId: 'u1', event: 'Padded', properties: { pad: '' } }
  const pad = bytes - Buffer.byteLength(JSON.stringify(base))
  return { ...base, properties: { pad: 'x'.repeat(pad) } }
}

describe('the seven endpoints', () => {
  it.each([
    ['/v1/identify', { userId: 'u1', traits: { email: 'ada@example.com' } }, 'identify'],
    ['/v1/track', { userId: 'u1', event: 'Signed Up' }, 'track'],
    ['/v1/page', { anonymousId: 'a1', name: 'Home' }, 'page'],
    ['/v1/screen', { userId: 'u1', name: 'Settings' }, 'screen'],
    ['/v1/group', { userId: 'u1', groupId: 'acme' }, 'group'],
    ['/v1/alias', { previousId: 'a1', userId: 'u1' }, 'alias'],
  ])('POST %s answers 200 and records an accepted %s message', async (path, message, type) => {
    const response = await post(collector.url, path, message)
    expect(response).toEqual({ status: 200, body: { success: true } })
    expect(collector.messages).toHaveLength(1)
    expect(collector.messages[0]).toMatchObject({ path, type, verdict: 'accepted', writeKey: 'test-key', message: { ...message, type } })
    expect(collector.messages[0].destinations).toEqual(['Amplitude', 'Mixpanel'])
  })

  it('POST /v1/batch records one accepted message per item, in order', async () => {
    const batch = [
      { type: 'identify', userId: 'u1' },
      { type: 'track', userId: 'u1', event: 'E' },
      { type: 'page', userId: 'u1' },
      { type: 'screen', userId: 'u1' },
      { type: 'group', userId: 'u1', groupId: 'g' },
    ]
    expect((await post(collector.url, '/v1/batch', { batch, sentAt: new Date().toISOString() })).status).toBe(200)
    expect(collector.messages.map((r) => [r.type, r.verdict, r.path])).toEqual(batch.map((m) => [m.type, 'accepted', '/v1/batch']))
    expect(new Set(collector.messages.map((r) => r.requestId)).size).toBe(1)
  })

  it('answers 404 to an unknown /v1 path and 405 to a GET of an endpoint', async () => {
    expect((await post(collector.url, '/v1/import', {})).status).toBe(404)
    const response = await fetch(collector.url + '/v1/track')
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST, OPTIONS')
    expect(collector.messages).toHaveLength(0)
  })

  it('records every request with its status and body size', async () => {
    await post(collector.url, '/v1/track', '{"userId":"u1","event":"E"}')
    await post(collector.url, '/v1/track', 'nope')
    expect(collector.requests.map((r) => [r.method, r.path, r.status, r.bytes, r.messages])).toEqual([
      ['POST', '/v1/track', 200, 27, 1],
      ['POST', '/v1/track', 400, 4, 0],
    ])
    // The write key is never kept: a few of its characters, masked.
    expect(collector.requests[0].headers.authorization).toBe('Basic test… (write key masked)')
    expect(JSON.stringify(collector.requests)).not.toContain(basic('test-key').slice(6))
  })
})

describe('400: the body is not valid JSON or over a size limit', () => {
  it.each(['/v1/track', '/v1/batch'])('answers 400 to a body that is not valid JSON on %s', async (path) => {
    const response = await post(collector.url, path, '{"userId": "u1",')
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(/^the body is not valid JSON/)
    expect(collector.messages).toHaveLength(0)
    expect(collector.requests[0]).toMatchObject({ status: 400, error: response.body.error })
  })

  it('answers 400 to an empty body', async () => {
    expect((await post(collector.url, '/v1/identify', '')).status).toBe(400)
  })

  it('accepts a single message of exactly 32 KB and refuses one byte more', async () => {
    expect((await post(collector.url, '/v1/track', trackOfBytes(32 * KB))).status).toBe(200)
    const over = await post(collector.url, '/v1/track', trackOfBytes(32 * KB + 1))
    expect(over).toEqual({
      status: 400,
      body: { success: false, error: 'Content-Length is 32769 bytes, over the limit of 32768 bytes (32 KB)' },
    })
    expect(collector.messages).toHaveLength(1)
  })

  it('answers 400 to a batch body over 500 KB', async () => {
    const batch = Array.from({ length: 20 }, () => ({ type: 'track', ...trackOfBytes(26 * KB) }))
    const response = await post(collector.url, '/v1/batch', { batch })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(/over the limit of 512000 bytes \(500 KB\)$/)
    expect(collector.messages).toHaveLength(0)
  })

  it('accepts a batch of 480 KB', async () => {
    const batch = Array.from({ length: 20 }, () => ({ type: 'track', ...trackOfBytes(24 * KB) }))
    expect((await post(collector.url, '/v1/batch', { batch })).status).toBe(200)
    expect(collector.messages).toHaveLength(20)
  })

  it('answers 400 to a batch with one item over 32 KB', async () => {
    const batch = [
      { type: 'track', userId: 'u1', event: 'small' },
      { type: 'track', ...trackOfBytes(33 * KB) },
    ]
    const response = await post(collector.url, '/v1/batch', { batch })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(
      /^batch item 1 is \d+ bytes with the batch's context and integrations merged in, over the limit of 32768 bytes/,
    )
    expect(collector.messages).toHaveLength(0)
  })

  it('refuses a body whose Content-Length is over the limit before the body is sent', async () => {
    // Only 1 KB of a declared 100 MB is ever written: the answer cannot have waited for the body.
    const result = await postStreaming(collector.url, '/v1/track', {
      chunk: Buffer.alloc(KB, 0x20),
      maxBytes: KB,
      contentLength: 100 * 1024 * KB,
    })
    expect(result).toEqual({ status: 400, bytesWritten: KB })
  })

  it('refuses a chunked body (no Content-Length) while it is still arriving', async () => {
    const result = await postStreaming(collector.url, '/v1/batch', { chunk: Buffer.alloc(64 * KB, 0x20), maxBytes: 64 * 1024 * KB })
    expect(result.status).toBe(400)
    expect(result.bytesWritten).toBeLessThan(16 * 1024 * KB)
    expect(collector.requests[0].error).toMatch(/^body is \d+ bytes or more, over the limit of 512000 bytes/)
  })
})

describe('gzip request bodies', () => {
  it('accepts a body sent with Content-Encoding: gzip', async () => {
    const response = await post(collector.url, '/v1/batch', { batch: [{ type: 'track', userId: 'u1', event: 'Zipped' }] }, { gzip: true })
    expect(response.status).toBe(200)
    expect(collector.messages[0]).toMatchObject({ verdict: 'accepted', message: { event: 'Zipped' } })
    expect(collector.requests[0].headers['content-encoding']).toBe('gzip')
  })

  it('applies the limit to the decompressed body: 1 MB of gzip-compressed spaces is refused', async () => {
    const body = gzipSync(Buffer.concat([Buffer.from('{"batch":['), Buffer.alloc(1024 * KB, 0x20), Buffer.from(']}')]))
    expect(body.length).toBeLessThan(32 * KB)
    const response = await fetch(collector.url + '/v1/batch', {
      method: 'POST',
      headers: { authorization: basic('test-key'), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toMatch(
      /^decompressed body is \d+ bytes or more, over the limit of 512000 bytes/,
    )
  })

  it('answers 400 to a body that says gzip but is not', async () => {
    const response = await post(collector.url, '/v1/track', { userId: 'u1', event: 'E' }, { headers: { 'content-encoding': 'gzip' } })
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('the body is not valid gzip although Content-Encoding says gzip')
  })
})

describe('200 with a dropped verdict: what the service accepts and then drops', () => {
  it('drops the messages of a wrong write key, recording the key', async () => {
    expect((await post(collector.url, '/v1/track', { userId: 'u1', event: 'E' }, { writeKey: 'wrong-key' })).status).toBe(200)
    expect(collector.messages[0]).toMatchObject({
      verdict: 'dropped',
      code: 'unknown_write_key',
      writeKey: 'wrong-key',
      reason: 'unknown write key "wron…" (masked): no source of this collector has it',
    })
    expect(collector.messages[0].destinations).toBeUndefined()
  })

  it('drops the messages of a request without a write key', async () => {
    expect((await post(collector.url, '/v1/identify', { userId: 'u1' }, { writeKey: null })).status).toBe(200)
    expect(collector.messages[0]).toMatchObject({ verdict: 'dropped', code: 'missing_write_key', writeKey: null })
  })

  it('drops the messages of a request whose Content-Type is not application/json', async () => {
    expect((await post(collector.url, '/v1/identify', { userId: 'u1' }, { contentType: 'text/plain' })).status).toBe(200)
    expect(collector.messages[0]).toMatchObject({ verdict: 'dropped', code: 'wrong_content_type' })
  })

  it('drops alias and unknown types inside a batch but accepts the other items', async () => {
    const batch = [
      { type: 'alias', previousId: 'a', userId: 'u' },
      { type: 'order', userId: 'u' },
      { type: 'identify', userId: 'u' },
    ]
    expect((await post(collector.url, '/v1/batch', { batch })).status).toBe(200)
    expect(collector.messages.map((r) => [r.type, r.verdict, r.code])).toEqual([
      ['alias', 'dropped', 'alias_in_batch'],
      ['order', 'dropped', 'type_not_allowed'],
      ['identify', 'accepted', undefined],
    ])
  })

  it.each([
    ['/v1/track', { userId: 'u1' }, 'missing_event'],
    ['/v1/group', { userId: 'u1' }, 'missing_group_id'],
    ['/v1/alias', { userId: 'u1' }, 'missing_previous_id'],
    ['/v1/page', { name: 'Home' }, 'missing_identity'],
    ['/v1/identify', [{ userId: 'u1' }], 'not_an_object'],
    ['/v1/identify', { userId: 'u1', traits: 'vip' }, 'wrong_field_type'],
    ['/v1/batch', { batch: 'none' }, 'missing_batch'],
  ])('answers 200 to %s with a message the service drops (%j → %s)', async (path, body, code) => {
    expect((await post(collector.url, path, body)).status).toBe(200)
    expect(collector.messages).toHaveLength(1)
    expect(collector.messages[0]).toMatchObject({ verdict: 'dropped', code })
  })

  it('keeps what arrived when a message is not an object', async () => {
    await post(collector.url, '/v1/batch', { batch: ['hello'] })
    expect(collector.messages[0]).toMatchObject({
      message: {},
      value: 'hello',
      reason: 'batch: an item must be a JSON object (got a string)',
    })
  })
})

describe('what the collector adds, as the service does', () => {
  it('merges the batch envelope context and integrations into each item', async () => {
    const body = {
      batch: [
        { type: 'track', userId: 'u1', event: 'A', context: { locale: 'en-US' } },
        { type: 'identify', userId: 'u1', integrations: { Amplitude: true } },
      ],
      context: { locale: 'fr-FR', app: { name: 'shop' } },
      integrations: { All: false, Mixpanel: true },
    }
    await post(collector.url, '/v1/batch', body)
    const [track, identify] = collector.messages
    expect(track.message.context).toEqual({ locale: 'en-US', app: { name: 'shop' } })
    expect(track.message.integrations).toEqual({ All: false, Mixpanel: true })
    expect(track.destinations).toEqual(['Mixpanel'])
    expect(identify.message.context).toEqual({ locale: 'fr-FR', app: { name: 'shop' } })
    expect(identify.destinations).toEqual(['Amplitude', 'Mixpanel'])
  })

  it('stamps a message without a timestamp with the time it was received, and keeps a given one', async () => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Now' })
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Then', timestamp: '2021-11-19T09:00:00.000Z' })
    expect(collector.messages[0].message.timestamp).toBe(collector.messages[0].receivedAt)
    expect(collector.messages[1].message.timestamp).toBe('2021-11-19T09:00:00.000Z')
  })

  it('records the sender IP in context.ip when context.direct is true, and only then', async () => {
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Direct', context: { direct: true } })
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Server', context: { locale: 'en' } })
    expect(collector.messages[0].message.context).toEqual({ direct: true, ip: '127.0.0.1' })
    expect(collector.messages[1].message.context).toEqual({ locale: 'en' })
  })
})

describe('memory, listeners and closing', () => {
  it('keeps at most maxMessages records, forgetting the oldest', async () => {
    const small = await createCollector({ maxMessages: 3 })
    try {
      await post(small.url, '/v1/batch', { batch: ['a', 'b', 'c', 'd', 'e'].map((event) => ({ type: 'track', userId: 'u', event })) })
      expect(small.messages.map((r) => [r.id, r.message.event])).toEqual([
        [3, 'c'],
        [4, 'd'],
        [5, 'e'],
      ])
    } finally {
      await small.close()
    }
  })

  it('calls message listeners for each record until they are removed', async () => {
    const seen: string[] = []
    const listener = (record: { message: Record<string, unknown> }) => seen.push(String(record.message.event))
    collector.on('message', listener)
    await post(collector.url, '/v1/track', { userId: 'u', event: 'one' })
    collector.off('message', listener)
    await post(collector.url, '/v1/track', { userId: 'u', event: 'two' })
    expect(seen).toEqual(['one'])
  })

  it('a throwing listener does not cost the sender its 200', async () => {
    collector.on('message', () => {
      throw new Error('listener bug')
    })
    expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'E' })).status).toBe(200)
  })

  it("tells a listener's throw to the error listeners, and the other listeners still get the record", async () => {
    const errors: Error[] = []
    const seen: unknown[] = []
    const bug = new Error('listener bug')
    collector.on('error', (err) => errors.push(err))
    collector.on('message', () => {
      throw bug
    })
    collector.on('message', (record) => seen.push(record.message.event))
    expect((await post(collector.url, '/v1/track', { userId: 'u', event: 'E' })).status).toBe(200)
    expect(seen).toEqual(['E'])
    expect(errors).toHaveLength(1)
    expect(errors[0].cause).toBe(bug)
    expect(errors[0].message).toContain("'message' listener threw")
  })

  it('waitForMessages resolves once enough messages have arrived', async () => {
    const waiting = collector.waitForMessages(2)
    await post(collector.url, '/v1/identify', { userId: 'u1' })
    await post(collector.url, '/v1/identify', { userId: 'u2' })
    expect((await waiting).map((r) => r.message.userId)).toEqual(['u1', 'u2'])
  })

  it('waitForMessages rejects, saying how many arrived, when the time is up or the collector closes', async () => {
    await post(collector.url, '/v1/identify', { userId: 'u1' })
    await expect(collector.waitForMessages(3, { timeout: 10 })).rejects.toThrow(
      'waitForMessages: 3 messages did not arrive within 10 ms (1 held)',
    )
    const waiting = collector.waitForMessages(5)
    await collector.close()
    await expect(waiting).rejects.toThrow('did not arrive before the collector closed')
  })

  it('clear() forgets every record', async () => {
    await post(collector.url, '/v1/track', { userId: 'u', event: 'E' })
    collector.clear()
    expect(collector.messages).toHaveLength(0)
    expect(collector.requests).toHaveLength(0)
  })

  it('close() ends keep-alive and event-stream connections', async () => {
    const agent = new http.Agent({ keepAlive: true })
    await new Promise<void>((resolve) => {
      http
        .request(collector.url + '/v1/track', { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume()
          res.on('end', resolve)
        })
        .end('{"userId":"u","event":"E"}')
    })
    let streamClosed!: Promise<void>
    await new Promise<void>((connected) => {
      http.get(collector.url + '/events', { agent: false }, (res) => {
        streamClosed = new Promise((resolve) => res.on('close', resolve))
        res.resume()
        connected()
      })
    })
    await collector.close()
    await streamClosed
    await expect(fetch(collector.url + '/v1/track', { method: 'POST' })).rejects.toThrow()
    agent.destroy()
  })

  it('refuses to start on a port that is taken, naming it', async () => {
    await expect(createCollector({ port: collector.port })).rejects.toThrow(
      `createCollector: port ${collector.port} on 127.0.0.1 is already in use`,
    )
  })

  it('refuses invalid options, naming the option', async () => {
    await expect(createCollector({ port: -1 })).rejects.toThrow('createCollector: "port" must be an integer from 0 to 65535')
    await expect(createCollector({ destinations: ['A'], historicalDestinations: ['B'] })).rejects.toThrow(
      'createCollector: "historicalDestinations" must name destinations listed in "destinations" ("B" is not)',
    )
  })
})
