import {
  planBatch,
  buildBatchBody,
  buildBatchBytes,
  buildSingleBody,
  bodyBytes,
  splitInHalves,
  BATCH_ENVELOPE_BYTES,
} from '../../src/queue/batch'
import type { QueuedEntry } from '../../src/queue/queue'
import { MessageQueue } from '../../src/queue/queue'
import { MAX_BATCH_BYTES } from '../../src'

let seq = 0
function entry(bytes: number, isAlias = false): QueuedEntry {
  seq += 1
  const filler = 'x'.repeat(Math.max(0, bytes - 13 - String(seq).length))
  const json = `{"n":${seq},"p":"${filler}"}`
  expect(Buffer.byteLength(json)).toBe(bytes)
  return { seq, at: 0, json, bytes, isAlias, callback: undefined }
}

const SENT_AT = '2026-01-01T00:00:00.000Z'

describe('planBatch', () => {
  it('takes nothing from an empty queue', () => {
    expect(planBatch(() => undefined, 10, MAX_BATCH_BYTES)).toBe(0)
  })

  it('takes the entries queued up to maxSeq, and always the first one', () => {
    const entries = [entry(100), entry(100), entry(100)]
    expect(planBatch((i) => entries[i], entries[1].seq, MAX_BATCH_BYTES)).toBe(2)
    expect(planBatch((i) => entries[i], Infinity, MAX_BATCH_BYTES)).toBe(3)
    expect(planBatch((i) => entries[i], 0, MAX_BATCH_BYTES)).toBe(1)
  })

  it('fills a body to the byte exactly and not one byte more', () => {
    const entries = [entry(1000), entry(1000), entry(1000)]
    const exact = BATCH_ENVELOPE_BYTES + 3000 + 2
    expect(planBatch((i) => entries[i], Infinity, exact)).toBe(3)
    expect(planBatch((i) => entries[i], Infinity, exact - 1)).toBe(2)
    expect(buildBatchBody(entries, SENT_AT).length).toBe(exact)
  })

  it('splits a request in two halves, the first the larger by at most one', () => {
    expect(splitInHalves([1, 2, 3, 4, 5])).toEqual([
      [1, 2, 3],
      [4, 5],
    ])
    expect(splitInHalves([1, 2])).toEqual([[1], [2]])
  })

  it('splits 2,000 messages of 3 KB into as few requests as fit in 500 KB', () => {
    const queue = new MessageQueue()
    for (let i = 0; i < 2000; i++) queue.push(entry(3000))
    const sizes: number[] = []
    while (queue.length > 0) {
      const taken = queue.take(planBatch((i) => queue.at(i), Infinity, MAX_BATCH_BYTES))
      const body = buildBatchBody(taken, SENT_AT)
      expect(Buffer.byteLength(body)).toBe(bodyBytes(taken))
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BATCH_BYTES)
      expect(JSON.parse(body).batch).toHaveLength(taken.length)
      sizes.push(taken.length)
    }
    const perRequest = Math.floor((MAX_BATCH_BYTES - BATCH_ENVELOPE_BYTES + 1) / 3001)
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(2000)
    expect(sizes.length).toBe(Math.ceil(2000 / perRequest))
    expect(queue.bytes).toBe(0)
  })
})

describe('bodies', () => {
  it('builds a batch body that is valid JSON with sentAt', () => {
    const body = JSON.parse(buildBatchBody([entry(50), entry(60)], SENT_AT))
    expect(body.batch).toHaveLength(2)
    expect(body.sentAt).toBe(SENT_AT)
  })

  it('builds a single-message body with sentAt, of the counted size', () => {
    const e = entry(80, true)
    const body = buildSingleBody(e, SENT_AT)
    expect(JSON.parse(body)).toMatchObject({ n: e.seq, sentAt: SENT_AT })
    expect(Buffer.byteLength(body)).toBe(bodyBytes([e]))
  })
})

describe('MessageQueue', () => {
  it('is first in, first out and keeps its byte count', () => {
    const q = new MessageQueue()
    const items = Array.from({ length: 3000 }, () => entry(20))
    items.forEach((e) => q.push(e))
    expect(q.bytes).toBe(60000)
    const first = q.take(2500)
    expect(first.map((e) => e.seq)).toEqual(items.slice(0, 2500).map((e) => e.seq))
    expect(q.length).toBe(500)
    expect(q.at(0)?.seq).toBe(items[2500].seq)
    expect(q.take(1000)).toHaveLength(500)
    expect(q.length).toBe(0)
    expect(q.bytes).toBe(0)
  })
})

describe('buildBatchBytes: the batch body written straight into bytes', () => {
  const entryOf = (json: string, bytes = Buffer.byteLength(json)): QueuedEntry => ({
    seq: 1,
    at: 0,
    json,
    bytes,
    isAlias: false,
    callback: undefined,
  })

  it('writes exactly the UTF-8 of the text body, ASCII and multi-byte messages alike', () => {
    const entries = [
      entryOf('{"a":"plain"}'),
      entryOf('{"b":"crème brûlée — 東京"}'),
      entryOf('{"c":"🚀 and an escaped lone surrogate \\ud800"}'),
    ]
    // Lines of an import, with the fields the client adds kept apart (head), ASCII or not.
    for (const [head, json] of [
      ['{"messageId":"m1",', '{"d":1}'],
      ['{"messageId":"ü-1","timestamp":"2026-01-01T00:00:00.000Z",', '{"e":"東京"}'],
    ]) {
      const bytes = Buffer.byteLength(head) + Buffer.byteLength(json) - 1
      entries.push({ seq: 1, at: 0, json, bytes, head, isAlias: false, callback: undefined })
    }
    const bytes = buildBatchBytes(entries, SENT_AT, bodyBytes(entries))
    expect(bytes).toBeDefined()
    expect(Buffer.from(bytes as Uint8Array).equals(Buffer.from(buildBatchBody(entries, SENT_AT)))).toBe(true)
    const batch = JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')).batch
    expect(batch).toHaveLength(5)
    expect(batch[4]).toEqual({ messageId: 'ü-1', timestamp: '2026-01-01T00:00:00.000Z', e: '東京' })
  })

  it('gives up (the text is sent instead) when a count does not hold, never a cut body', () => {
    // The counts are exact by construction (utf8ByteLength, or the bytes a line was read from); a
    // string as long as its count is taken for ASCII.
    const short = [entryOf('{"a":"crème"}', 12)] // 14 bytes in fact
    expect(buildBatchBytes(short, SENT_AT, bodyBytes(short))).toBeUndefined()
    const long = [entryOf('{"a":1}', 9)]
    expect(buildBatchBytes(long, SENT_AT, bodyBytes(long))).toBeUndefined()
    const ok = [entryOf('{"a":1}')]
    expect(buildBatchBytes(ok, SENT_AT, bodyBytes(ok) + 1)).toBeUndefined()
  })
})
