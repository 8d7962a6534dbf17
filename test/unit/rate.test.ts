import { RateWindow } from '../../src/flow-control/rate'

describe('RateWindow', () => {
  it('lets `limit` requests start in a window, then says how long until the oldest leaves it', () => {
    const rate = new RateWindow(2, 1000)
    rate.record(0)
    expect(rate.waitMs(100)).toBe(0)
    rate.record(100)
    expect(rate.waitMs(400)).toBe(600)
    expect(rate.waitMs(1000)).toBe(0)
    rate.record(1000)
    expect(rate.waitMs(1000)).toBe(100)
  })

  // Issue 11, item 11: with maxRequestsPerSecond Infinity the log grew ~10 bytes a request forever.
  it('holds no start time with an Infinity limit, however many requests start', () => {
    const rate = new RateWindow(Infinity, 1000)
    for (let i = 0; i < 100_000; i++) {
      expect(rate.waitMs(i)).toBe(0)
      rate.record(i)
    }
    expect(rate.size).toBe(0)
  })

  it('holds only the starts of the last window with a huge limit', () => {
    const rate = new RateWindow(1e9, 1000)
    // 10 starts a millisecond for 100 seconds: a million requests.
    for (let ms = 0; ms < 100_000; ms++) for (let k = 0; k < 10; k++) rate.record(ms)
    expect(rate.size).toBe(10 * 1000)
    expect(rate.waitMs(100_000)).toBe(0)
    expect(rate.size).toBe(10 * 999)
  })
})
