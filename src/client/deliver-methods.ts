import { toError } from './ledger'
import { outcomeOnly } from '../queue/settle'
import { newMessageId } from '../message/message-id'
import { readAheadToken, releaseReadAhead } from '../message/read-ahead'
import { snapshotMessage } from '../message/snapshot'
import { onKept } from '../queue/kept-notice'
import type {
  AliasMessage,
  AnyEvents,
  Callback,
  EventCatalog,
  GroupMessage,
  IdentifyMessage,
  MessageType,
  PageMessage,
  ScreenMessage,
  Traits,
  TrackInput,
} from '../core/types'

/**
 * The outcome of one message: delivered (the service accepted its request), or not delivered, with
 * the error. With a disk spool, a message the service could not take yet (it is down, or its
 * request ran out of retries on 5xx, 408, 429 or no answer) is not lost: it settles with
 * `delivered: false` and `kept: true` (the message is in the spool and will be delivered, by this
 * client or the next one on its directory, with its `messageId`), `error` saying why it waits.
 */
export type Delivery =
  | { readonly delivered: true; readonly messageId: string }
  | {
      readonly delivered: false
      readonly messageId: string | undefined
      readonly error: Error
      /** True when the message is kept in the disk spool and will be delivered later; absent otherwise. */
      readonly kept?: true
    }

/**
 * The message methods in a form you can await: each queues the message like its namesake on
 * `Analytics`, has it sent right after the current synchronous run of calls (with whatever else is
 * queued, instead of waiting for `flushAt` or `flushInterval`), and returns a promise that settles
 * exactly once with that message's {@link Delivery}.
 * It never rejects (an ignored promise cannot crash the process), and it settles within the retry
 * budget (`maxRetryTime`), or at once when the message is refused. With a disk spool, a message
 * the service does not take within that budget (or sent while it is known down) settles with
 * `{ delivered: false, kept: true, error }`: it waits on disk and is delivered later (see
 * {@link Delivery}).
 */
export interface DeliverMethods<
  Events extends EventCatalog = AnyEvents,
  UserTraits extends object = Traits,
  GroupTraits extends object = Traits,
> {
  /** Queues an identify message and resolves with its outcome. */
  identify(message: IdentifyMessage<UserTraits>): Promise<Delivery>
  /** Queues a track message and resolves with its outcome. */
  track(message: TrackInput<Events>): Promise<Delivery>
  /** Queues a page message and resolves with its outcome. */
  page(message: PageMessage): Promise<Delivery>
  /** Queues a screen message and resolves with its outcome. */
  screen(message: ScreenMessage): Promise<Delivery>
  /** Queues a group message and resolves with its outcome. */
  group(message: GroupMessage<GroupTraits>): Promise<Delivery>
  /** Queues an alias message and resolves with its outcome. */
  alias(message: AliasMessage): Promise<Delivery>
}

type Send = (type: MessageType, message: unknown, callback: Callback) => void

/** The awaitable methods over `send`, the client's own enqueue with a callback, and `expedite`, which has what is queued sent soon. */
export function createDeliverMethods<Events extends EventCatalog, UserTraits extends object, GroupTraits extends object>(
  send: Send,
  expedite: () => void,
): DeliverMethods<Events, UserTraits, GroupTraits> {
  const method = (type: MessageType) => (message: unknown) => {
    const outcome = deliverOne(send, type, message)
    expedite()
    return outcome
  }
  return {
    identify: method('identify'),
    track: method('track'),
    page: method('page'),
    screen: method('screen'),
    group: method('group'),
    alias: method('alias'),
  }
}

function deliverOne(send: Send, type: MessageType, message: unknown): Promise<Delivery> {
  return new Promise((resolve) => {
    // The message is read here, once, and the client takes this reading as its own (see
    // readAheadToken): the id that the outcome names is the one sent, whatever a getter does on
    // a second read. What reading threw reaches the client too, which refuses the message with it
    // exactly as `track(message, callback)` would.
    let messageId: string | undefined
    let token: object
    try {
      const snapshot = snapshotMessage(type, message)
      const given = snapshot.messageId
      messageId = typeof given === 'string' && given.trim() !== '' ? given : given == null || given === '' ? newMessageId() : undefined
      if (messageId !== undefined) snapshot.messageId = messageId
      token = readAheadToken({ snapshot })
    } catch (thrown) {
      token = readAheadToken({ thrown })
    }
    try {
      const callback = outcomeOnly((error: Error | undefined) =>
        resolve(error === undefined ? { delivered: true, messageId: messageId as string } : { delivered: false, messageId, error }),
      )
      // With a spool: kept on disk for the service, it settles now (a promise settles once).
      send(
        type,
        token,
        onKept(callback, (error) => resolve({ delivered: false, messageId, error, kept: true })),
      )
    } catch (err) {
      resolve({ delivered: false, messageId, error: toError(err) })
    } finally {
      releaseReadAhead(token)
    }
  })
}
