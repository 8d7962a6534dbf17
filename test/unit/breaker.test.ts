import {
  afterProbeFailed,
  afterVerdict,
  CLOSED,
  DEFAULT_BREAKER,
  probeDelayMs,
  probeDueMs,
  retryWaitCapMs,
  type AttemptVerdict,
  type BreakerState,
} from '../../src/flow-control/breaker'

const policy = DEFAULT_BREAKER
const half = (): number => 0.5

// Each attempt ends at `at`, having started just before (or at `started`, when given).
function run(verdicts: Array<[AttemptVerdict, number, number?]>, from: BreakerState = CLOSED): BreakerState {
  return verdicts.reduce((state, [verdict, at, started]) => afterVerdict(state, policy, verdict, started ?? at - 1, at, half), from)
}

describe('the outage breaker (pure policy, injected clock)', () => {
  it('opens after 8 failed attempts in a row that span at least a second', () => {
    const seven = Array.from({ length: 7 }, (_, i): [AttemptVerdict, number] => ['failed', i * 200])
    expect(run(seven).isOpen).toBe(false)
    expect(run([...seven, ['failed', 1400]]).isOpen).toBe(true)
  })

  it('stays closed while 8 failures in a row come within a second (a busy client that is merely unlucky)', () => {
    const fast = Array.from({ length: 30 }, (_, i): [AttemptVerdict, number] => ['failed', i * 20])
    expect(run(fast).isOpen).toBe(false)
    expect(run([...fast, ['failed', 1000]]).isOpen).toBe(true)
  })

  it('starts the run again at any answer that shows the service alive', () => {
    const state = run([
      ['failed', 0],
      ['failed', 300],
      ['failed', 600],
      ['failed', 900],
      ['alive', 950],
      ['failed', 1000],
      ['failed', 1200],
      ['failed', 1400],
      ['failed', 1600],
      ['failed', 1800],
    ])
    expect(state).toMatchObject({ isOpen: false, failures: 5, sinceMs: 1000 })
  })

  it('opens at the second timeout with no answer between, whatever the time', () => {
    expect(run([['timeout', 10_000]]).isOpen).toBe(false)
    expect(
      run([
        ['timeout', 10_000],
        ['failed', 10_001],
        ['timeout', 10_002],
      ]).isOpen,
    ).toBe(true)
    expect(
      run([
        ['timeout', 10_000],
        ['alive', 10_001],
        ['timeout', 10_002],
      ]).isOpen,
    ).toBe(false)
  })

  it('does not count a timeout of an attempt that started before the service last answered (bad luck, not an outage)', () => {
    // Started at 0, others answered at 500, timed out at 1000; the next started after and timed out too.
    expect(
      run([
        ['alive', 500],
        ['timeout', 1000, 0],
        ['timeout', 2100, 1050],
      ]).isOpen,
    ).toBe(false)
    expect(
      run([
        ['alive', 500],
        ['timeout', 1000, 0],
        ['timeout', 2100, 1050],
        ['timeout', 3200, 2150],
      ]).isOpen,
    ).toBe(true)
  })

  it('does not count failures of attempts that started before the service last answered', () => {
    // Seven requests hung from before an answer at 500 ms, and time out 10 s later: no outage.
    const stale = Array.from({ length: 7 }, (_, i): [AttemptVerdict, number, number] => ['timeout', 10_000 + i * 200, i])
    const state = run([['failed', 400, 399], ['alive', 500], ...stale, ['failed', 11_500, 11_499]])
    expect(state.isOpen).toBe(false)
    expect(state.failures).toBe(1)
  })

  it('counts requests that hung together as one timeout: the second must have started after the first timed out', () => {
    expect(
      run([
        ['timeout', 10_000, 0],
        ['timeout', 10_001, 1],
      ]).isOpen,
    ).toBe(false)
    expect(
      run([
        ['timeout', 10_000, 0],
        ['timeout', 10_001, 1],
        ['timeout', 20_050, 10_050],
      ]).isOpen,
    ).toBe(true)
  })

  it('probes at growing intervals, 1 s doubling to 30 s, less up to 20 % jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => probeDelayMs(n, policy, () => 1))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
    expect(probeDelayMs(0, policy, () => 0)).toBe(800)
    let state = run(Array.from({ length: 8 }, (_, i): [AttemptVerdict, number] => ['failed', i * 200]))
    expect(state.nextProbeMs).toBe(1400 + 900)
    state = afterProbeFailed(state, policy, 2400, half)
    expect(state.nextProbeMs).toBe(2400 + 1800)
  })

  it('ignores failures of attempts that were in flight when it opened, and closes at any answer', () => {
    const open = run(Array.from({ length: 8 }, (_, i): [AttemptVerdict, number] => ['failed', i * 200]))
    expect(afterVerdict(open, policy, 'failed', 1000, 1500, half)).toBe(open)
    expect(afterVerdict(open, policy, 'alive', 1000, 1500, half)).toEqual({ ...CLOSED, lastAliveMs: 1500 })
  })

  it('brings the probe forward while a flush is awaited, but never within a second of the last', () => {
    const state: BreakerState = { ...CLOSED, isOpen: true, failures: 4, nextProbeMs: 30_000 }
    expect(probeDueMs(state, policy, 5000, false)).toBe(30_000)
    expect(probeDueMs(state, policy, 5000, true)).toBe(6000)
  })

  it('does not splice a run across a gap nobody looked into: a flapping service (down 0.5 s, up 0.5 s, no attempt in the up phase) is not down', () => {
    // Issue 29: failures through a down phase, no attempt for 636 ms (a whole up phase), failures again.
    const before = Array.from({ length: 5 }, (_, i): [AttemptVerdict, number] => ['failed', i * 100])
    const after = Array.from({ length: 5 }, (_, i): [AttemptVerdict, number] => ['failed', 1036 + i * 100])
    const state = run([...before, ...after])
    expect(state.isOpen).toBe(false)
    expect(state).toMatchObject({ failures: 5, sinceMs: 1036 })
    // The same failures with an attempt in the gap that failed too: down all along.
    expect(run([...before, ['failed', 800], ...after]).isOpen).toBe(true)
  })

  it('keeps a run whose attempts come at most maxGapMs apart, and opens it once it spans a second', () => {
    // One request retrying against a service that is down, its waits capped while the run builds.
    const times = [0, 25, 75, 175, 575, 975, 1375, 1775]
    const state = run(times.map((at): [AttemptVerdict, number] => ['failed', at]))
    expect(state.isOpen).toBe(true)
    expect(Math.max(...times.slice(1).map((t, i) => t - times[i]))).toBeLessThanOrEqual(policy.maxGapMs)
  })

  it('shortens the backoff to runRetryWaitMs while a run builds, and only then', () => {
    expect(retryWaitCapMs(CLOSED, policy)).toBe(Infinity)
    const building = run([['failed', 0]])
    expect(retryWaitCapMs(building, policy)).toBe(policy.runRetryWaitMs)
    expect(policy.runRetryWaitMs).toBeLessThan(policy.maxGapMs)
    const open = run(Array.from({ length: 8 }, (_, i): [AttemptVerdict, number] => ['failed', i * 200]))
    expect(retryWaitCapMs(open, policy)).toBe(Infinity)
    expect(retryWaitCapMs(afterVerdict(building, policy, 'alive', 10, 20, half), policy)).toBe(Infinity)
  })
})
