import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCollector } from '../../src/collector'
import type { Collector } from '../../src/collector'
import { post, readEvents } from './helpers'

let dir: string
let collector: Collector | undefined

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventrail-collector-'))
})

afterEach(async () => {
  await collector?.close()
  collector = undefined
  await rm(dir, { recursive: true, force: true })
})

describe('the JSON-lines file (out)', () => {
  it('appends every message record with its verdict, one JSON object a line', async () => {
    const out = join(dir, 'events.jsonl')
    collector = await createCollector({ out, writeKeys: ['k'], destinations: ['Amplitude'] })
    await post(
      collector.url,
      '/v1/batch',
      {
        batch: [
          { type: 'track', userId: 'u', event: 'A' },
          { type: 'track', userId: 'u' },
        ],
      },
      { writeKey: 'k' },
    )
    await post(collector.url, '/v1/alias', { previousId: 'a', userId: 'u' }, { writeKey: 'nope' })
    const records = [...collector.messages]
    await collector.close()
    const lines = (await readFile(out, 'utf8')).split('\n')
    expect(lines.pop()).toBe('')
    // As written: every record, its write key masked ('k' shows none of its characters; 'nope', 'no…').
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      JSON.parse(JSON.stringify(records.map((r) => ({ ...r, writeKey: r.writeKey === 'k' ? '…' : 'no…' })))),
    )
    expect(lines.map((line) => JSON.parse(line).verdict)).toEqual(['accepted', 'dropped', 'dropped'])
    expect(JSON.parse(lines[0])).toMatchObject({ path: '/v1/batch', writeKey: '…', destinations: ['Amplitude'], message: { event: 'A' } })
  })

  it('appends to an existing file instead of replacing it', async () => {
    const out = join(dir, 'events.jsonl')
    await writeFile(out, '{"earlier":true}\n')
    collector = await createCollector({ out })
    await post(collector.url, '/v1/identify', { userId: 'u' })
    await collector.close()
    const lines = (await readFile(out, 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[0])).toEqual({ earlier: true })
  })

  it('keeps writing records that memory no longer holds', async () => {
    const out = join(dir, 'events.jsonl')
    collector = await createCollector({ out, maxMessages: 1 })
    await post(collector.url, '/v1/batch', { batch: [1, 2, 3].map((n) => ({ type: 'identify', userId: `u${n}` })) })
    await collector.close()
    expect(collector.messages).toHaveLength(1)
    expect((await readFile(out, 'utf8')).trim().split('\n')).toHaveLength(3)
  })

  it('fails to start when the file cannot be opened, naming the path', async () => {
    const out = join(dir, 'missing-dir', 'events.jsonl')
    await expect(createCollector({ out })).rejects.toThrow(`createCollector: "out" cannot be opened for appending: ${out}`)
  })
})

describe('the debugger page and its live feed', () => {
  beforeEach(async () => {
    collector = await createCollector()
  })

  it('serves the page, its stylesheet and its script', async () => {
    const page = await fetch(collector!.url + '/')
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    expect(html).toContain('<script src="/debugger.js"></script>')
    const script = await fetch(collector!.url + '/debugger.js')
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await script.text()).toContain("new EventSource('/events')")
    expect((await fetch(collector!.url + '/debugger.css')).status).toBe(200)
    expect((await fetch(collector!.url + '/nothing-here')).status).toBe(404)
  })

  it('streams the backlog, then each new message, as server-sent events', async () => {
    await post(collector!.url, '/v1/identify', { userId: 'before' })
    let posted: Promise<unknown> | undefined
    const events = readEvents(collector!.url + '/events', (list) => {
      const messages = list.filter((e) => e.event === 'message')
      // Sent only once the backlog has arrived: this message can only come through the live feed.
      if (messages.length === 1) posted ??= post(collector!.url, '/v1/track', { userId: 'after', event: 'Live' })
      return messages.length === 2
    })
    const list = await events
    await posted
    expect(list[0]).toEqual({ event: 'reset', data: {} })
    expect(list.filter((e) => e.event === 'message').map((e) => e.data.message.userId)).toEqual(['before', 'after'])
  })

  it('streams requests refused with 400 as rejected events', async () => {
    await post(collector!.url, '/v1/track', 'not json')
    const list = await readEvents(collector!.url + '/events', (l) => l.some((e) => e.event === 'rejected'))
    expect(list.find((e) => e.event === 'rejected')?.data).toMatchObject({ status: 400, path: '/v1/track' })
  })

  it('serves the records as JSON and clears them on POST /api/clear', async () => {
    await post(collector!.url, '/v1/identify', { userId: 'u' })
    const body = (await (await fetch(collector!.url + '/api/messages')).json()) as { messages: unknown[]; requests: unknown[] }
    expect(body.messages).toHaveLength(1)
    expect(body.requests).toHaveLength(1)
    expect((await fetch(collector!.url + '/api/clear', { method: 'POST' })).status).toBe(204)
    expect(collector!.messages).toHaveLength(0)
  })
})
