import { BatchLimit } from '../../src/queue/batch-limit'
import { BATCH_ENVELOPE_BYTES } from '../../src/queue/batch'
import { Lanes } from '../../src/queue/lanes'
import type { QueuedEntry } from '../../src/queue/queue'

let seq = 0
function entry(isAlias = false, bytes = 100): QueuedEntry {
  seq += 1
  return { seq, at: 0, json: '{}', bytes, isAlias, callback: undefined }
}
const always = (): boolean => true
const fullOnly = (isFull: boolean): boolean => isFull

describe('Lanes', () => {
  beforeEach(() => (seq = 0))

  it('empties and fills again: a lane that emptied (its queue let go) reads as empty and takes new messages', () => {
    const lanes = new Lanes()
    expect([lanes.length, lanes.firstSeq, lanes.firstAt, lanes.next(Infinity, always, 1000)]).toEqual([0, Infinity, Infinity, undefined])
    lanes.push(entry())
    lanes.push(entry(true))
    expect(lanes.take('batch', Infinity, 1000).map((e) => e.seq)).toEqual([1])
    expect(lanes.take('alias', Infinity, 1000).map((e) => e.seq)).toEqual([2])
    expect([lanes.length, lanes.firstSeq, [...lanes.waiting()], lanes.takeAll()]).toEqual([0, Infinity, [], []])
    expect(lanes.takeExpired(Infinity, Infinity)).toEqual([])
    lanes.push(entry(true))
    lanes.push(entry())
    expect(lanes.next(Infinity, always, 1000)).toBe('alias')
    expect(lanes.takeAll().map((e) => e.seq)).toEqual([3, 4])
    expect(lanes.length).toBe(0)
  })

  it('takes a batch of every batchable message, whatever aliases sit between them', () => {
    const lanes = new Lanes()
    for (let i = 0; i < 5; i++) {
      lanes.push(entry())
      lanes.push(entry(true))
    }
    expect(lanes.next(Infinity, always, 500 * 1024)).toBe('batch')
    expect(lanes.take('batch', Infinity, 500 * 1024).map((e) => e.seq)).toEqual([1, 3, 5, 7, 9])
    expect(lanes.next(Infinity, always, 500 * 1024)).toBe('alias')
    expect(lanes.take('alias', Infinity, 500 * 1024).map((e) => e.seq)).toEqual([2])
    expect(lanes.length).toBe(4)
    expect(lanes.firstSeq).toBe(4)
  })

  it('serves the lane whose first message was queued first', () => {
    const lanes = new Lanes()
    lanes.push(entry(true))
    lanes.push(entry())
    expect(lanes.next(Infinity, always, 1024)).toBe('alias')
  })

  it('sends nothing queued after the due order number', () => {
    const lanes = new Lanes()
    lanes.push(entry())
    lanes.push(entry(true))
    expect(lanes.next(0, always, 1024)).toBeUndefined()
    expect(lanes.next(1, always, 1024)).toBe('batch')
  })

  it('passes a batch over when it may not start, and serves the aliases behind it', () => {
    const lanes = new Lanes()
    lanes.push(entry())
    lanes.push(entry(true))
    expect(lanes.next(Infinity, fullOnly, 1024)).toBe('alias')
    lanes.take('alias', Infinity, 1024)
    expect(lanes.next(Infinity, fullOnly, 1024)).toBeUndefined()
  })

  it('knows when the batch lane holds more than one request carries', () => {
    const lanes = new Lanes()
    lanes.push(entry(false, 600))
    lanes.push(entry(false, 600))
    expect(lanes.hasFullBatch(BATCH_ENVELOPE_BYTES + 1201)).toBe(false)
    expect(lanes.hasFullBatch(BATCH_ENVELOPE_BYTES + 1200)).toBe(true)
  })

  it('hands back everything, in order, on takeAll', () => {
    const lanes = new Lanes()
    for (let i = 0; i < 4; i++) lanes.push(entry(i % 2 === 1))
    expect(lanes.takeAll().map((e) => e.seq)).toEqual([1, 2, 3, 4])
    expect(lanes.length).toBe(0)
  })
})

describe('BatchLimit', () => {
  const policy = { floor: 1, ceiling: 8, initial: 2, decreaseIntervalMs: 0, holdsSlotWhileWaiting: false, latencyTolerance: Infinity }

  it('keeps batches that are not full to their own cap, and lets full ones use the rest', () => {
    const limit = new BatchLimit({ ...policy, initial: 3 }, 1)
    expect(limit.mayStart(false)).toBe(true)
    limit.start(true)
    expect(limit.mayStart(false)).toBe(false)
    expect(limit.mayStart(true)).toBe(true)
    limit.start(false)
    limit.start(false)
    expect(limit.mayStart(true)).toBe(false)
    limit.end(true)
    expect(limit.mayStart(false)).toBe(true)
  })

  it('grows only while a full batch waits, and halves on overload', () => {
    const limit = new BatchLimit(policy, 8)
    limit.report('success', 0, 0, false)
    limit.start(false)
    limit.start(false)
    expect(limit.mayStart(true)).toBe(false)
    limit.report('success', 0, 0, true)
    expect(limit.mayStart(true)).toBe(true)
    limit.report('overload', 10, 20, true)
    expect(limit.mayStart(true)).toBe(false)
  })
})
