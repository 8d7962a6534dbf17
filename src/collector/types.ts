import type { PlanViolation } from './plan-schema'
import type { WaitOptions } from './wait'

/** Options of {@link createCollector}. Every one is optional. */
export interface CollectorOptions {
  /**
   * TCP port to listen on. `0` picks a free port (read it back from `collector.url`).
   * @defaultValue 0 (the `eventrail dev` command defaults to 4040)
   */
  port?: number
  /**
   * Interface to listen on. The collector is a development tool: keep it on loopback.
   * @defaultValue `'127.0.0.1'`
   */
  host?: string
  /**
   * Write keys of the sources the collector knows. Messages sent with another key get the verdict
   * `dropped` (`unknown_write_key`). Empty or absent: any non-empty write key is accepted.
   * @defaultValue `[]` (any non-empty key)
   */
  writeKeys?: readonly string[]
  /**
   * Names of the destinations enabled for the source, matched case-sensitively against the keys of
   * `integrations`. Each accepted message lists which of them would receive it.
   * @defaultValue `[]`
   */
  destinations?: readonly string[]
  /**
   * Which of `destinations` take historical (timestamped, past) data. A historical message reaches
   * only these. Absent: every destination takes historical data, so the rule changes nothing until
   * you say which do.
   * @defaultValue every name in `destinations`
   */
  historicalDestinations?: readonly string[]
  /**
   * How old, in milliseconds, a message's `timestamp` must be when it is received for the message
   * to count as historical. Live messages from a client carry a timestamp a little in the past
   * (queue time, retries), so "in the past" needs a margin.
   * @defaultValue 300000 (five minutes)
   */
  historicalAfterMs?: number
  /** Path of a JSON-lines file to which every message record is appended, one JSON object a line. */
  out?: string
  /**
   * Most message records kept in memory; past it the oldest are forgotten (the `out` file keeps all).
   * @defaultValue 10000
   */
  maxMessages?: number
  /**
   * Most bytes of message JSON kept in memory (each record's message, as JSON text); past it the
   * oldest records are forgotten. Parsed, a message of many tiny objects takes up to ~20x its JSON
   * in the heap, so the default bounds the records to a few hundred MB in the worst case.
   * @defaultValue 8388608 (8 MiB)
   */
  maxMessageBytes?: number
  /**
   * Most request records kept in memory; past it the oldest are forgotten.
   * @defaultValue 10000
   */
  maxRequests?: number
  /**
   * A tracking plan: the JSON of `plan.toJSONSchema()` (from `eventrail/plan`). Each track, identify
   * and group message is checked against it, and its record lists the violations beside the
   * verdict (the service would still accept the message). `eventrail dev --plan FILE` reads it from a file.
   */
  plan?: object
}

/** The verdict the service's source debugger would show for a message. */
export type Verdict = 'accepted' | 'dropped'

/** Why a message was dropped, as a stable code (the record's `reason` says it in words). */
export type DropCode =
  | 'missing_write_key'
  | 'unknown_write_key'
  | 'wrong_content_type'
  | 'not_an_object'
  | 'missing_identity'
  | 'missing_event'
  | 'missing_group_id'
  | 'missing_previous_id'
  | 'missing_user_id'
  | 'type_not_allowed'
  | 'alias_in_batch'
  | 'missing_batch'
  | 'wrong_field_type'

/** One message the collector received, with its verdict. */
export interface MessageRecord {
  /** Sequence number, from 1, in the order the collector received messages. */
  readonly id: number
  /** The `id` of the {@link RequestRecord} that carried the message. */
  readonly requestId: number
  /** When the request arrived (ISO-8601). */
  readonly receivedAt: string
  /** The endpoint, e.g. `/v1/batch`. */
  readonly path: string
  /** The write key of the request's Basic auth, or `null` when there was none. */
  readonly writeKey: string | null
  /** The message's kind: the endpoint's, or the batch item's `type` (as sent, possibly invalid). */
  readonly type: string | null
  /** `accepted`, or `dropped` with a `reason`. */
  readonly verdict: Verdict
  /** Why the message was dropped, naming the field and the rule. Absent when accepted. */
  readonly reason?: string
  /** {@link DropCode} of the drop. Absent when accepted. */
  readonly code?: DropCode
  /**
   * The message as the service would store it: batch `context` and `integrations` merged in,
   * `type` set, `timestamp` stamped when absent, `context.ip` set when `context.direct` is true.
   * Empty when what arrived was not a JSON object (see `value`).
   */
  readonly message: Readonly<Record<string, unknown>>
  /** What arrived, when it was not a JSON object (an array, a string, a number, `null`). */
  readonly value?: unknown
  /** Accepted messages only: the configured destinations that would receive it. */
  readonly destinations?: readonly string[]
  /** Accepted messages only: whether the message counts as historical (see `historicalAfterMs`). */
  readonly historical?: boolean
  /** With a `plan`, accepted track, identify and group messages: how they break it (empty when they match). */
  readonly violations?: readonly PlanViolation[]
}

/** One HTTP request the collector answered. */
export interface RequestRecord {
  /** Sequence number, from 1. */
  readonly id: number
  /** When the request arrived (ISO-8601). */
  readonly receivedAt: string
  /** The HTTP method. */
  readonly method: string
  /** The path, without the query string. */
  readonly path: string
  /** The status the collector answered. */
  readonly status: number
  /** Bytes of the body as received on the wire (compressed when gzip), counted up to where reading stopped. */
  readonly bytes: number
  /** The request headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** Why the request was refused (400, or 404 and 405 for a path or method that is not an endpoint), naming the rule. */
  readonly error?: string
  /** How many message records the request produced. */
  readonly messages: number
}

/** The events of `collector.on(event, listener)` and what each listener receives. */
export interface CollectorEvents {
  /** A message was received and judged. */
  message: MessageRecord
  /** A request to a `/v1/*` path, or a POST to a path that is not the debugger's, was answered. */
  request: RequestRecord
  /**
   * The `out` file could not be written (a full disk): records from then on are missing from it.
   * Also a `message` or `request` listener that threw (the error's `cause` is what it threw): the
   * collector and the other listeners go on.
   */
  error: Error
}

/** A running collector: the wire interface on a real `node:http` server, with a live debugger at `/`. */
export interface Collector {
  /** Base URL, e.g. `http://127.0.0.1:4040`: pass it as the client's `host`. */
  readonly url: string
  /** The port the server listens on. */
  readonly port: number
  /** Message records, oldest first, at most `maxMessages`. A live view: it grows as messages arrive. */
  readonly messages: readonly MessageRecord[]
  /** Request records of the `/v1/*` paths and of POSTs to unknown paths, oldest first, at most `maxRequests`. */
  readonly requests: readonly RequestRecord[]
  /** Calls `listener` for every new record of `event`. A throwing listener does not disturb the collector. */
  on<K extends keyof CollectorEvents>(event: K, listener: (record: CollectorEvents[K]) => void): this
  /** Removes a listener added with `on`. */
  off<K extends keyof CollectorEvents>(event: K, listener: (record: CollectorEvents[K]) => void): this
  /**
   * Resolves with `messages` once it holds at least `count` records: for messages sent by a
   * background flush. Rejects, saying how many arrived, after `timeout` ms (default 5000) or
   * when the collector closes.
   * @example
   * ```ts
   * analytics.track({ userId: 'u1', event: 'Later' }) // sent by the flush timer
   * const [record] = await collector.waitForMessages(1)
   * ```
   */
  waitForMessages(count: number, options?: WaitOptions): Promise<readonly MessageRecord[]>
  /** Forgets every record held in memory (the `out` file is kept) and empties open debugger pages. */
  clear(): void
  /** Stops the server, closes every connection (keep-alive and debugger streams) and the `out` file. */
  close(): Promise<void>
  /** Counts since the collector started, records it no longer holds included. */
  stats(): CollectorStats
}

/** What `collector.stats()` returns. */
export interface CollectorStats {
  /** Messages received and judged. */
  readonly messages: number
  /** Of those, accepted (the rest were dropped). */
  readonly accepted: number
  /** Records written to the `out` file, and records left out of it after a write failure (a full disk); absent without `out`. */
  readonly out?: { readonly written: number; readonly lost: number }
}
