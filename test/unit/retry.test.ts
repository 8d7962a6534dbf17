import { isRetryableStatus, backoffDelayMs, parseRetryAfterMs, nextRetryDelayMs } from '../../src/flow-control/retry'
import { RateWindow } from '../../src/flow-control/rate'

const policy = { maxRetries: 3, baseMs: 100, capMs: 1000, maxTotalMs: 5000 }

describe('retry policy', () => {
  it.each([408, 429, 500, 502, 503, 504, 599])('retries %i', (status) => expect(isRetryableStatus(status)).toBe(true))
  it.each([200, 400, 401, 403, 404, 413, 422, 501, 505])('does not retry %i', (status) => expect(isRetryableStatus(status)).toBe(false))

  it('draws full jitter below base × 2^attempt, capped', () => {
    expect(backoffDelayMs(0, policy, () => 0.999)).toBe(99)
    expect(backoffDelayMs(2, policy, () => 0.5)).toBe(200)
    expect(backoffDelayMs(10, policy, () => 0.999)).toBe(999)
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0)
  })

  it('keeps the first 7 retries under 1 s, and lets later ones grow to the cap', () => {
    const long = { maxRetries: 10, baseMs: 50, capMs: 10_000, maxTotalMs: 60_000 }
    const nearly = (): number => 0.999
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, long, nearly))).toEqual([49, 99, 199, 399, 799, 999, 999])
    expect(backoffDelayMs(7, long, nearly)).toBe(6393)
    expect(backoffDelayMs(9, long, nearly)).toBe(9990)
  })

  it('parses Retry-After as seconds or an HTTP date, capped at 30 s', () => {
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfterMs('2', now)).toBe(2000)
    expect(parseRetryAfterMs('0.5', now)).toBe(500)
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000)
    // A date in the past (a server clock behind ours) or zero means the normal backoff, never "now".
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBeUndefined()
    expect(parseRetryAfterMs('0', now)).toBeUndefined()
    expect(parseRetryAfterMs('-5', now)).toBeUndefined()
    expect(parseRetryAfterMs('3600', now)).toBe(30_000)
    expect(parseRetryAfterMs(null, now)).toBeUndefined()
    expect(parseRetryAfterMs('soon', now)).toBeUndefined()
    expect(parseRetryAfterMs('-1', now)).toBeUndefined()
  })

  it('stops after maxRetries and before the total time budget', () => {
    expect(nextRetryDelayMs(0, 0, undefined, policy, () => 0.5)).toBe(50)
    expect(nextRetryDelayMs(3, 0, undefined, policy, () => 0.5)).toBeUndefined()
    expect(nextRetryDelayMs(0, 0, 2000, policy, () => 0.5)).toBe(2000)
    expect(nextRetryDelayMs(1, 4000, 2000, policy, () => 0.5)).toBeUndefined()
  })
})

describe('RateWindow', () => {
  it('allows at most limit starts in any window', () => {
    const w = new RateWindow(3, 1000)
    for (const t of [0, 10, 20]) {
      expect(w.waitMs(t)).toBe(0)
      w.record(t)
    }
    expect(w.waitMs(30)).toBe(970)
    expect(w.waitMs(1000)).toBe(0)
    w.record(1000)
    expect(w.waitMs(1001)).toBe(9)
  })
})
