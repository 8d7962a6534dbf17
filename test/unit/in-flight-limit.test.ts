import { afterAttempt, afterOverload, afterSuccess, fixedInFlight, startLimit, type LimitPolicy } from '../../src/flow-control/in-flight-limit'

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
    // 90 successes grew it to the ceiling; the 30 overloads, a quarter, halved it no more.
    expect(state.limit).toBe(64)
  })
})
