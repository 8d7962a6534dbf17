import { readAheadToken, releaseReadAhead } from '../message/read-ahead'
import { snapshotMessage, type Snapshot } from '../message/snapshot'
import type { MessageType } from '../core/types'

/**
 * What a call's message meets when it is made inside a request's context (`eventrail/context`):
 * the identity, context and consent of that request.
 * @internal
 */
export interface AmbientFrame {
  /**
   * Fills the message (the client's own snapshot of it) with what it does not set itself.
   * `fresh`: the client may change the message after this (plugins): nothing shared may be put
   * in it. Returns an error to refuse the message with (it is withheld for consent).
   */
  apply(type: MessageType, snapshot: Snapshot, fresh: boolean): Error | undefined
}

/**
 * The client's slot for `eventrail/context`: asked once per call, only when installed; answers the
 * frame the call runs in, or `undefined` outside any context (the call goes on unchanged).
 * @internal
 */
export type AmbientSource = () => AmbientFrame | undefined

/**
 * Queues a call's message inside a frame: the message is read once here (as `deliver.*` does),
 * filled by the frame, and handed on to `enqueue` as a read-ahead token (see `readAheadToken`),
 * so that the usual path (validation, plugins, plan, queue) takes the filled copy as the caller's
 * reading. A refusal by the frame goes to `refuse`; what reading threw is the usual path's to
 * report, as if it had read the message itself.
 */
export function enqueueInFrame(
  frame: AmbientFrame,
  type: MessageType,
  message: unknown,
  fresh: boolean,
  enqueue: (message: unknown) => void,
  refuse: (error: Error) => void,
): void {
  let token: object
  try {
    const snapshot: Snapshot = snapshotMessage(type, message)
    const refusal = frame.apply(type, snapshot, fresh)
    if (refusal !== undefined) {
      refuse(refusal)
      return
    }
    token = readAheadToken({ snapshot })
  } catch (thrown) {
    token = readAheadToken({ thrown })
  }
  try {
    enqueue(token)
  } finally {
    releaseReadAhead(token)
  }
}
