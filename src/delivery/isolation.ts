/**
 * Telling a batch problem from a service problem, as values. A request whose attempts keep failing
 * while the service accepts requests that started after its batch first failed carries something
 * the service refuses: it is split in halves, as a too-large batch is, until what fails stands
 * alone, and its failures are not evidence of an outage (the breaker does not count them; the
 * in-flight limits still do, as for any 5xx). A 503 is never taken for a batch problem: it says the
 * service is busy or down. Pure: the caller passes in the clock readings and the client-wide
 * record of accepted requests.
 */

/** What a request knows of its batch's failures; the halves of a split batch start from it. */
export interface BatchTrouble {
  /** When the first failed attempt of the batch (or of the batch it was split from) started, ms. */
  readonly sinceMs: number | undefined
  /** Whether the batch, or one it was split from, was already split without evidence. */
  readonly splitBlind: boolean
}

/** A batch that has not failed yet. */
export const NO_TROUBLE: BatchTrouble = Object.freeze({ sinceMs: undefined, splitBlind: false })

/**
 * Failed attempts of one request after which it is split in halves: one failure may be bad luck
 * (a quarter of requests failing at random splits one batch in sixteen), two in a row while the
 * service accepts others say the batch is the problem.
 */
export const FAILURES_TO_SPLIT = 2

/**
 * An attempt of the request that started at `startedMs` failed (5xx but 503, 408, no answer): the batch's
 * trouble from now on, and whether this failure is a batch problem: the service accepted (2xx) a
 * request that started at or after the batch's first failure (`lastAcceptedStartMs`).
 */
export function afterFailure(
  trouble: BatchTrouble,
  startedMs: number,
  lastAcceptedStartMs: number,
): { readonly trouble: BatchTrouble; readonly isBatchProblem: boolean } {
  const next = trouble.sinceMs === undefined ? { ...trouble, sinceMs: startedMs } : trouble
  return { trouble: next, isBatchProblem: lastAcceptedStartMs >= (next.sinceMs as number) }
}

/**
 * Whether a request of `count` messages that has failed `failures` times is split now, and if so
 * the trouble its halves start from; undefined to retry it whole. It splits when its last failure
 * was a batch problem, or once per batch without that evidence (a client that sends nothing else
 * has no other request to compare with: its halves are that comparison, and in a real outage both
 * fail and the split is not repeated).
 */
export function splitTrouble(count: number, failures: number, trouble: BatchTrouble, isBatchProblem: boolean): BatchTrouble | undefined {
  if (count < 2 || failures < FAILURES_TO_SPLIT) return undefined
  if (isBatchProblem) return trouble
  return trouble.splitBlind ? undefined : { ...trouble, splitBlind: true }
}

/** Thrown by the attempt loop instead of a retry: the request is to be split in halves, which start from `trouble`. */
export class SplitBatch extends Error {
  override name = 'SplitBatch'
  constructor(readonly trouble: BatchTrouble) {
    super('the batch keeps failing while the service accepts others: it is split in halves')
  }
}
