import { outcomeOnly, settle } from '../../src/queue/settle'
import type { QueuedEntry } from '../../src/queue/queue'

const entry = (seq: number, callback: QueuedEntry['callback']): QueuedEntry => ({
  seq,
  at: 0,
  json: JSON.stringify({ type: 'track', event: `e${seq}` }),
  bytes: 10,
  isAlias: false,
  callback,
})

describe('settle', () => {
  afterEach(() => jest.restoreAllMocks())

  it('does not parse the request back when every callback takes only the outcome', () => {
    const parse = jest.spyOn(JSON, 'parse')
    const seen: unknown[] = []
    const cb = outcomeOnly((err) => seen.push(err))
    settle([entry(1, cb), entry(2, cb)], undefined, () => undefined)
    expect(seen).toEqual([undefined, undefined])
    expect(parse).not.toHaveBeenCalled()
  })

  it('hands the batch, parsed once, to callbacks that may read it', () => {
    const parse = jest.spyOn(JSON, 'parse')
    const batches: unknown[] = []
    settle(
      [
        entry(
          1,
          outcomeOnly(() => undefined),
        ),
        entry(2, (_err, batch) => batches.push(batch)),
        entry(3, (_err, batch) => batches.push(batch)),
      ],
      undefined,
      () => undefined,
    )
    expect(batches).toHaveLength(2)
    expect(batches[0]).toBe(batches[1])
    expect(batches[0]).toEqual([
      { type: 'track', event: 'e1' },
      { type: 'track', event: 'e2' },
      { type: 'track', event: 'e3' },
    ])
    expect(parse).toHaveBeenCalledTimes(3)
  })
})
