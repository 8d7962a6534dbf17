import { Fifo } from '../../src/core/fifo'
import { MessageQueue, type QueuedEntry } from '../../src/queue/queue'

describe('Fifo', () => {
  it('takes from the front in order, across compactions, and holds what it was given', () => {
    const fifo = new Fifo<number>(4)
    const out: number[] = []
    let next = 0
    // Pushes and takes interleaved: the head passes the compaction point many times.
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 7; i++) fifo.push(next++)
      out.push(...fifo.take(5))
      expect(fifo.at(0)).toBe(out.length)
    }
    out.push(...fifo.take(Infinity))
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i))
    expect(fifo.length).toBe(0)
    expect(fifo.at(0)).toBeUndefined()
  })

  it('drop and set work from the front; take of more than it holds gives what it holds', () => {
    const fifo = new Fifo<string>(2)
    for (const s of ['a', 'b', 'c', 'd']) fifo.push(s)
    fifo.drop(1)
    fifo.set(1, 'C')
    expect(fifo.take(10)).toEqual(['b', 'C', 'd'])
    fifo.drop(3)
    expect(fifo.length).toBe(0)
  })
})

describe('MessageQueue', () => {
  const entry = (seq: number, bytes: number): QueuedEntry => ({ seq, at: 0, json: '{}', bytes, isAlias: false, callback: undefined })

  it('keeps its byte count through push, take and drop', () => {
    const queue = new MessageQueue()
    for (let i = 1; i <= 5; i++) queue.push(entry(i, i * 10))
    expect(queue.bytes).toBe(150)
    expect(queue.take(2).map((e) => e.seq)).toEqual([1, 2])
    expect(queue.bytes).toBe(120)
    queue.drop(2)
    expect(queue.bytes).toBe(50)
    expect(queue.take(5).map((e) => e.seq)).toEqual([5])
    expect(queue.bytes).toBe(0)
  })
})
