import type { Snapshot } from './snapshot'

// Messages read ahead of the client, by the one who then hands them over: the snapshot (its own
// token), or a frozen token standing for what reading the message threw.
const readAhead = new WeakMap<object, { readonly snapshot?: Snapshot; readonly thrown?: unknown }>()
let outstanding = 0

/**
 * For `deliver.*`, which must know a message's id before the client queues it: what reading the
 * message gave (its snapshot, or what was thrown), as the token to hand to the client in place of
 * the message. The client takes the token's snapshot as its own ({@link takeReadAhead}) instead
 * of reading the caller's object a second time, so that a getter cannot answer the two reads
 * differently (the outcome would name one id while another was sent). Release it after the call.
 */
export function readAheadToken(result: { readonly snapshot: Snapshot } | { readonly thrown: unknown }): object {
  const token = 'snapshot' in result ? result.snapshot : Object.freeze({})
  readAhead.set(token, result)
  outstanding += 1
  return token
}

/** Forgets a token (taken or not: a closed client refuses it without reading it). */
export function releaseReadAhead(token: object): void {
  if (readAhead.delete(token)) outstanding -= 1
}

/**
 * The snapshot a token stands for (once), `undefined` when `input` is not a token.
 * @throws what reading the message threw.
 */
export function takeReadAhead(input: unknown): Snapshot | undefined {
  // Nothing is looked up while no token is out: every other message pays one comparison.
  if (outstanding === 0 || typeof input !== 'object' || input === null) return undefined
  const result = readAhead.get(input)
  if (result === undefined) return undefined
  releaseReadAhead(input)
  if (result.snapshot === undefined) throw result.thrown
  return result.snapshot
}
