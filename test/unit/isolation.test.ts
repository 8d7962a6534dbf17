import { afterFailure, FAILURES_TO_SPLIT, NO_TROUBLE, splitTrouble } from '../../src/delivery/isolation'

describe('telling a batch problem from a service problem (pure)', () => {
  it('a failure is a batch problem once the service accepted a request that started at or after the batch first failed', () => {
    const first = afterFailure(NO_TROUBLE, 1_000, 900)
    expect(first).toEqual({ trouble: { sinceMs: 1_000, splitBlind: false }, isBatchProblem: false })
    // Another request, started after the first failure, was accepted: the batch is the problem.
    expect(afterFailure(first.trouble, 1_200, 1_050).isBatchProblem).toBe(true)
    // Only requests that started before it were accepted: nothing says the service is up now.
    expect(afterFailure(first.trouble, 1_200, 999).isBatchProblem).toBe(false)
  })

  it(`splits a batch after ${FAILURES_TO_SPLIT} failures when it is a batch problem, at every level down to one message`, () => {
    const trouble = { sinceMs: 0, splitBlind: true }
    expect(splitTrouble(10, 1, trouble, true)).toBeUndefined()
    expect(splitTrouble(10, 2, trouble, true)).toBe(trouble)
    expect(splitTrouble(2, 2, trouble, true)).toBe(trouble)
    expect(splitTrouble(1, 5, trouble, true)).toBeUndefined()
  })

  it('splits once without evidence (a lone batch: its halves are the comparison), never twice', () => {
    const halves = splitTrouble(10, 2, { sinceMs: 0, splitBlind: false }, false)
    expect(halves).toEqual({ sinceMs: 0, splitBlind: true })
    expect(splitTrouble(5, 2, halves!, false)).toBeUndefined()
  })
})
