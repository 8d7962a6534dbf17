import { routeMessage, type RoutingRules } from './destinations'
import { expandBody } from './envelope'
import type { Credentials } from './request-rules'
import type { DropCode, Verdict } from './types'
import { isJsonObject, judgeMessage, type Drop, type MessageKind } from './verdict'

/** What the collector knows about a request whose body is valid JSON within the limits. */
export interface RequestFacts {
  /** The endpoint: a message kind, or `batch`. */
  readonly endpoint: MessageKind | 'batch'
  /** The parsed JSON body. */
  readonly body: unknown
  /** The write key and its drop, if any. */
  readonly credentials: Credentials
  /** The drop for a wrong `Content-Type`, if any. */
  readonly contentTypeDrop: Drop | undefined
  /** When the request arrived. */
  readonly receivedAtMs: number
  /** The sender's IP address, recorded in `context.ip` of messages with `context.direct: true`. */
  readonly ip: string
  readonly rules: RoutingRules
}

/** The verdict on one message and where it goes. */
export interface Judgement {
  readonly type: string | null
  readonly verdict: Verdict
  readonly reason?: string
  readonly code?: DropCode
  readonly message: Record<string, unknown>
  readonly value?: unknown
  readonly destinations?: string[]
  readonly historical?: boolean
}

/**
 * Judges every message of a request as the service would: request-level drops (write key,
 * `Content-Type`) apply to all of them; then batch rules and the rules of each kind. Messages
 * are stamped like the service stamps them: a `timestamp` (the time of reception) when they have
 * none, and `context.ip` (the sender's address) when `context.direct` is true. Pure.
 */
export function judgeRequest(facts: RequestFacts): Judgement[] {
  const requestDrop = facts.credentials.drop ?? facts.contentTypeDrop
  return expandBody(facts.endpoint, facts.body).map((item): Judgement => {
    // A batch body without a `batch` array is recorded as it came: it is not a message to stamp.
    const message = item.drop?.code === 'missing_batch' ? item.message : stamp(item.message, facts)
    const drop = requestDrop ?? item.drop ?? (item.kind === undefined ? undefined : judgeMessage(item.kind, message))
    const value = item.value === undefined ? {} : { value: item.value }
    if (drop !== undefined) return { type: item.type, verdict: 'dropped', reason: drop.reason, code: drop.code, message, ...value }
    return { type: item.type, verdict: 'accepted', message, ...routeMessage(message, facts.rules, facts.receivedAtMs) }
  })
}

/** The message with a reception `timestamp` when it has none and `context.ip` when `context.direct` is true. */
export function stamp(message: Record<string, unknown>, facts: Pick<RequestFacts, 'receivedAtMs' | 'ip'>): Record<string, unknown> {
  if (Object.keys(message).length === 0) return message
  const stamped = { ...message }
  if (stamped.timestamp == null) stamped.timestamp = new Date(facts.receivedAtMs).toISOString()
  const context = stamped.context
  if (isJsonObject(context) && context.direct === true) stamped.context = { ...context, ip: facts.ip }
  return stamped
}
