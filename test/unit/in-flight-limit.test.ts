import {
  afterAttempt,
  afterOverload,
  afterSuccess,
  fixedInFlight,
  MIN_GROWTH_WINDOW,
  QUICK_DECREASE_SIGNALS,
  startLimit,
  type InFlightLimit,
  type LimitPolicy,
} from '../../src/flow-control/in-flight-limit'

const POLICY: LimitPolicy = {
  floor: 2,
  ceiling: 10,
  initial: 4,
  decreaseIntervalMs: 1000,
  holdsSlotWhileWaiting: false,
  latencyTolerance: Infinity,
}

describe('the adaptive in-flight limit', () => {
  it('starts at the initial value, kept between floor and ceiling', () => {
    expect(startLimit(POLICY).limit).toBe(4)
    expect(startLimit({ ...POLICY, initial: 50 }).limit).toBe(10)
    expect(startLimit({ ...POLICY, initial: 0 }).limit).toBe(2)
  })

  it('grows by one for each success while work waits, and not while none waits', () => {
    let state = startLimit(POLICY)
    state = afterSuccess(state, POLICY, true)
    state = afterSuccess(state, POLICY, true)
    expect(state.limit).toBe(6)
    expect(afterSuccess(state, POLICY, false).limit).toBe(6)
  })

  it('grows only while successes come back within latencyTolerance times the base round trip', () => {
    const policy = { ...POLICY, latencyTolerance: 2 }
    let state = startLimit(policy)
    state = afterSuccess(state, policy, true, 80)
    state = afterSuccess(state, policy, true, 150)
    expect(state.limit).toBe(6)
    // The round trip tripled: the service is already busy; more in flight would only queue there.
    state = afterSuccess(state, policy, true, 240)
    expect(state.limit).toBe(6)
    expect(state.baseRttMs).toBeGreaterThan(80)
    expect(afterSuccess(state, policy, true, 90).limit).toBe(7)
  })

  it('lets the base round trip drift up, so a service that stays slower can grow again', () => {
    const policy = { ...POLICY, ceiling: 1000, latencyTolerance: 2 }
    let state = afterSuccess(startLimit(policy), policy, true, 10)
    for (let i = 0; i < 200; i++) state = afterSuccess(state, policy, true, 100)
    expect(state.baseRttMs).toBeGreaterThan(50)
    const before = state.limit
    expect(afterSuccess(state, policy, true, 100).limit).toBe(before + 1)
  })

  it('never grows past the ceiling', () => {
    let state = startLimit(POLICY)
    for (let i = 0; i < 100; i++) state = afterSuccess(state, POLICY, true)
    expect(state.limit).toBe(10)
  })

  it('halves at once on an overload signal', () => {
    let state = startLimit({ ...POLICY, initial: 9 })
    state = afterOverload(state, POLICY, 0, 5000)
    expect(state.limit).toBe(4)
    expect(state.decreasedAtMs).toBe(5000)
  })

  it('never shrinks below the floor', () => {
    let state = startLimit(POLICY)
    for (let now = 0; now < 10_000; now += 1000) state = afterOverload(state, POLICY, now, now)
    expect(state.limit).toBe(2)
  })

  it('shrinks once for signals from attempts that started before the last decrease', () => {
    let state = startLimit({ ...POLICY, initial: 10 })
    state = afterOverload(state, POLICY, 100, 2000)
    // Attempts of the same round trip fail too; they started before the decrease: no new decrease.
    state = afterOverload(state, POLICY, 150, 3500)
    state = afterOverload(state, POLICY, 1999, 3600)
    expect(state.limit).toBe(5)
    // An attempt started after the decrease that fails is news: the limit halves again.
    state = afterOverload(state, POLICY, 2500, 3700)
    expect(state.limit).toBe(2)
  })

  it('shrinks at most once per decreaseInterval', () => {
    let state = startLimit({ ...POLICY, initial: 10 })
    state = afterOverload(state, POLICY, 0, 1000)
    state = afterOverload(state, POLICY, 1500, 1600)
    expect(state.limit).toBe(5)
    state = afterOverload(state, POLICY, 1700, 2000)
    expect(state.limit).toBe(2)
  })

  it('treats neutral answers (a 400, a 413) as saying nothing about load', () => {
    const state = startLimit(POLICY)
    expect(afterAttempt(state, POLICY, 'neutral', 0, 5000, true)).toBe(state)
    expect(afterAttempt(state, POLICY, 'success', 0, 5000, true).limit).toBe(5)
    expect(afterAttempt(state, POLICY, 'overload', 0, 5000, true).limit).toBe(2)
  })

  it('stays where an explicit maxInFlight pins it', () => {
    const pinned = fixedInFlight(3).requests
    let state = startLimit(pinned)
    for (let i = 0; i < 10; i++) state = afterAttempt(state, pinned, 'success', i, i, true)
    expect(state.limit).toBe(3)
    for (let i = 0; i < 10; i++) state = afterAttempt(state, pinned, 'overload', i * 5000, i * 5000, true)
    expect(state.limit).toBe(3)
  })
})

describe('quick decreases when most answers are overload signals', () => {
  const policy = { floor: 1, ceiling: 64, initial: 32, decreaseIntervalMs: 1000, holdsSlotWhileWaiting: false, latencyTolerance: Infinity }

  it('halves at once when overload signals outnumber successes since the last decrease (a service that serves few at a time)', () => {
    let state = afterOverload(startLimit(policy), policy, 0, 10) // the first decrease: 16
    expect(state.limit).toBe(16)
    state = afterSuccess(state, policy, true, 5)
    for (let i = 0; i < 3; i++) state = afterOverload(state, policy, 11, 12)
    expect(state.limit).toBe(17) // 3 overloads against 1 success: not yet
    state = afterOverload(state, policy, 11, 12)
    expect(state.limit).toBe(8) // 4 overloads, more than the successes: well within the second
  })

  it('keeps to one decrease a second while most answers succeed (a quarter failing at random)', () => {
    let state = afterOverload(startLimit(policy), policy, 0, 10)
    for (let i = 0; i < 30; i++) {
      state = afterSuccess(state, policy, true, 5)
      state = afterSuccess(state, policy, true, 5)
      state = afterSuccess(state, policy, true, 5)
      state = afterOverload(state, policy, 11, 20 + i)
    }
    // 90 successes grew it to the ceiling (slow start: a decrease for a minority of failures is not
    // one for capacity); the 30 overloads, a quarter, halved it no more.
    expect(state.limit).toBe(64)
    expect(state.isAvoiding).toBe(false)
  })
})

describe('congestion avoidance: after the first decrease, about one more per window of successes', () => {
  const policy: LimitPolicy = {
    floor: 1,
    ceiling: 64,
    initial: 32,
    decreaseIntervalMs: 1000,
    holdsSlotWhileWaiting: false,
    latencyTolerance: Infinity,
  }
  /** `n` successes of 5 ms, work waiting. */
  const succeed = (state: InFlightLimit, n: number): InFlightLimit => {
    for (let i = 0; i < n; i++) state = afterSuccess(state, policy, true, 5)
    return state
  }

  /** A decrease, then `QUICK_DECREASE_SIGNALS` overloads with no success: a quick one. */
  const quickDecrease = (state: InFlightLimit): InFlightLimit => {
    state = afterOverload(state, policy, 0, 100)
    for (let i = 0; i < QUICK_DECREASE_SIGNALS; i++) state = afterOverload(state, policy, 150, 200)
    return state
  }

  it('doubles per round trip until a quick decrease (slow start), then grows by one per window', () => {
    let state = startLimit({ ...policy, initial: 8 })
    state = succeed(state, 8)
    expect(state.limit).toBe(16)
    expect(state.isAvoiding).toBe(false)
    state = quickDecrease(state)
    expect(state).toMatchObject({ limit: 4, isAvoiding: true })
    // A whole round trip of successes (4 at a limit of 4) buys one more slot, not four.
    state = succeed(state, 3)
    expect(state.limit).toBe(4)
    state = succeed(state, 1)
    expect(state.limit).toBe(5)
    state = succeed(state, 5)
    expect(state.limit).toBe(6)
  })

  it('keeps slow start after a decrease for a minority of failures (a flaky service, not one at capacity)', () => {
    let state = afterOverload(startLimit({ ...policy, initial: 8 }), policy, 0, 100)
    expect(state).toMatchObject({ limit: 4, isAvoiding: false })
    state = succeed(state, 4)
    expect(state.limit).toBe(8)
  })

  it('takes at least MIN_GROWTH_WINDOW successes per step at a small limit', () => {
    let state = quickDecrease(startLimit({ ...policy, initial: 4 }))
    expect(state.limit).toBe(1)
    state = succeed(state, MIN_GROWTH_WINDOW - 1)
    expect(state.limit).toBe(1)
    state = succeed(state, 1)
    expect(state.limit).toBe(2)
  })

  it('does not grow while no work waits or the round trip has grown', () => {
    const guarded = { ...policy, latencyTolerance: 2 }
    let state = quickDecrease(startLimit({ ...guarded, initial: 16 }))
    expect(state).toMatchObject({ limit: 4, isAvoiding: true })
    state = afterSuccess(state, guarded, true, 10)
    for (let i = 0; i < 20; i++) state = afterSuccess(state, guarded, false, 10)
    for (let i = 0; i < 20; i++) state = afterSuccess(state, guarded, true, 100)
    expect(state.limit).toBe(4)
  })

  it('counts overloads against a step up from the step on: a probe past what the service takes is undone after a few refusals', () => {
    let state = quickDecrease(startLimit({ ...policy, initial: 4 })) // 1, avoiding
    state = succeed(state, 2 * MIN_GROWTH_WINDOW) // 3: the last success was a probe
    expect(state.limit).toBe(3)
    // The 8 successes before the probe do not outweigh the refusals that follow it.
    for (let i = 0; i < 4; i++) state = afterOverload(state, policy, 200, 300)
    expect(state.limit).toBe(1)
  })

  it('converges on a service that serves 2 at a time: attempts stay under 2 per success', () => {
    // A model on an injected clock: each round trip of 20 ms, 2 requests succeed; any beyond 2 are
    // refused at once (1 ms) and the slot is taken again by the next message.
    let state = startLimit(policy)
    let now = 1
    let attempts = 0
    let successes = 0
    while (successes < 1000) {
      const started = now
      const extra = Math.max(0, state.limit - 2)
      // The extra slots are refused in turn until the limit comes down or the round trip ends.
      for (let t = 0; t < 20 && extra > 0 && state.limit > 2; t++) {
        for (let k = 0; k < Math.max(0, state.limit - 2); k++) {
          attempts += 1
          state = afterOverload(state, policy, now, now + 1)
        }
        now += 1
      }
      now = started + 20
      const served = Math.min(2, state.limit)
      attempts += served
      successes += served
      for (let k = 0; k < served; k++) state = afterSuccess(state, policy, true, 20)
    }
    expect(attempts / successes).toBeLessThanOrEqual(2)
    expect(state.limit).toBeLessThanOrEqual(4)
  })
})
