import type { InFlightPolicy } from '../flow-control/in-flight-limit'
import type { Plugin, PluginChain } from '../plugins/types'
import type { PlanMode } from '../plan/check'
import type { TrackingPlan } from '../plan/define-plan'
import type { ResolvedPlan } from '../plan/resolved'
import type { StaticContext } from './static-context'
import type { ResolvedSpool, SpoolOptions } from './spool-option'
import type { Context, ErrorHandler, FetchLike } from '../core/types'

/** The default region host. */
export const DEFAULT_HOST = 'https://api.segment.io'

/** The EU region host (plans with regional access only). */
export const EU_HOST = 'https://events.eu1.segmentapis.com'

/** Options of `new Analytics(writeKey, options)`. Every one is optional. */
export interface AnalyticsOptions {
  /**
   * Base URL of the service (scheme and host, optionally a port and a path prefix). Trailing
   * slashes are removed. No user name or password (the write key is the only credential), no
   * query string, no fragment. Use {@link EU_HOST} for the EU region.
   * @defaultValue `'https://api.segment.io'`
   */
  host?: string
  /**
   * Hosts to send to while `host` is down, in order of preference; each as `host` must be (the
   * same rules, none repeated). When the outage breaker opens for `host`, requests go to the first
   * fallback host whose breaker is closed; `host` keeps being probed (every 1 s, growing to 30 s)
   * and traffic returns to it once a probe gets an answer. Only when every host is down do
   * messages fail at once (or wait in the spool). The write key is sent to these hosts too, and
   * only to the hosts listed here and in `host` (redirects are never followed). Requests in flight
   * at a switch may arrive twice, with the same `messageId`s (docs/delivery.md, "Fallback hosts").
   * @defaultValue `[]`: no fallback
   * @example `{ host: 'https://collect.example.com', fallbackHosts: ['https://collect-b.example.com'] }`
   */
  fallbackHosts?: readonly string[]
  /**
   * Number of queued messages that triggers a flush. `1` sends every message as soon as it arrives.
   * @defaultValue 20
   */
  flushAt?: number
  /**
   * Milliseconds after the last flush at which queued messages are flushed. `0` or `Infinity` turns
   * timed flushes off. At most 2^31−1 (a timer's limit), else the constructor throws.
   * @defaultValue 10000
   */
  flushInterval?: number
  /**
   * `false` sends nothing: messages are still validated and their callbacks and `flush` complete. For tests.
   * @defaultValue true
   */
  enable?: boolean
  /**
   * Receives every failed request (and every refused message that has no callback). When set, no
   * `flush()` rejects and nothing is thrown for a failed request.
   */
  errorHandler?: ErrorHandler
  /**
   * The fetch to send with. Default: in Node, `node:http`/`node:https` with a keep-alive agent,
   * loaded on the first send; in Bun, Deno and edge runtimes, the global `fetch`. Pass the global
   * `fetch`, undici's, node-fetch's or a proxying fetch to use that instead.
   */
  fetch?: FetchLike
  /**
   * Milliseconds one HTTP attempt may take, reading the response included, before it is aborted and
   * counted as failed (and retried). From 1 to 2^31−1 (a timer's limit), else the constructor throws.
   * @defaultValue 10000
   */
  timeout?: number
  /**
   * How many times a failed request is retried (network errors, timeouts, 408, 429, 5xx but 501 and
   * 505), within `maxRetryTime`. Against a service that fails a quarter of requests at random, 4
   * attempts lose one request in 256 and 11 attempts one in four million. When the service is down,
   * the outage breaker stops the retries early: what waits fails with a `ServiceUnavailableError`
   * (docs/delivery.md, "Outages"). Bound a `flush()` that must return sooner with
   * `closeAndFlush({ timeout })`.
   * @defaultValue 10
   */
  maxRetries?: number
  /**
   * Base of the exponential backoff between retries, in milliseconds (full jitter: a random delay
   * up to `retryDelay × 2^attempt`, capped by `maxRetryDelay`). At most 2^31−1.
   * @defaultValue 50
   */
  retryDelay?: number
  /**
   * Longest backoff between two attempts, in milliseconds. A `Retry-After` header is honoured up to 30 s.
   * At most 2^31−1.
   * @defaultValue 10000
   */
  maxRetryDelay?: number
  /**
   * Longest time, in milliseconds, one request may spend in attempts and waits before it fails for good.
   * At most 2^31−1, or `Infinity`: no time limit, only `maxRetries`.
   * @defaultValue 60000
   */
  maxRetryTime?: number
  /**
   * Most messages held at once (queued, in flight, waiting to retry, or waiting in an async plugin). Past it a message is refused with a `QueueFullError`.
   * @defaultValue 500000
   */
  maxQueueSize?: number
  /**
   * Most bytes of serialized messages held at once (a message waiting in an async plugin counts by an estimate of its size). Past it a message is refused with a `QueueFullError`.
   * @defaultValue 268435456 (256 MiB)
   */
  maxQueueBytes?: number
  /**
   * Pins the number of requests in flight at once for this instance. Unset, the number adapts to
   * the service: it starts at 32, grows by one for every request that
   * succeeds while work waits (up to 64), and halves at once on 429, 5xx, resets and timeouts (down
   * to 1). Set it when you want a fixed number, e.g. `1` for strictly one request at a time.
   * @defaultValue adaptive, 1 to 64
   */
  maxInFlight?: number
  /**
   * Most requests started per second by this instance (the service recommends at most 500).
   * Past it, messages wait and go out in bigger batches.
   * @defaultValue 500
   */
  maxRequestsPerSecond?: number
  /**
   * Send request bodies gzip-compressed (`Content-Encoding: gzip`). The 500 KB limit applies to the uncompressed body.
   * Where the runtime has neither `node:zlib` nor `CompressionStream` (Vercel's Edge Runtime), bodies go uncompressed,
   * without `Content-Encoding`: no error, as the service accepts both.
   * @defaultValue false
   */
  compress?: boolean
  /**
   * Keeps background sends alive on platforms that end a request's work when its response is
   * sent: pass the platform's `waitUntil` (Cloudflare Workers: `waitUntil` from
   * `cloudflare:workers`, or `(p) => ctx.waitUntil(p)` for a client made per request; Vercel:
   * `waitUntil` from `@vercel/functions`; Next.js: `after`). With it, the messages queued in one
   * synchronous run of calls are flushed right after it, and the promise of that flush (which
   * settles, never rejects, when every one of them has an outcome) is handed to `waitUntil`, so a
   * handler that returns without awaiting loses nothing.
   */
  waitUntil?: (promise: Promise<unknown>) => void
  /**
   * Steps every message goes through, in order, after validation and normalization and before
   * serialization and the 32 KB check: enrich, scrub or drop messages (see {@link Plugin} and
   * `docs/plugins.md`). Given once; the list cannot change later.
   * @defaultValue none
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a plugin typed with any catalog (its own, or none)
  plugins?: readonly Plugin<any>[]
  /**
   * Longest a plugin's promise may take for one message, in milliseconds; past it the plugin has
   * failed (its `onError` decides). From 1 to 2^31−1.
   * @defaultValue 5000
   */
  pluginTimeout?: number
  /**
   * Fields merged into every message's `context` (app name and version, environment …): a field
   * of the message's own context replaces the option's field of the same name, whole. JSON values
   * only; not `library`, which the client sets.
   * @example `{ app: { name: 'api', version: '1.4.0' } }`
   */
  context?: Context
  /**
   * A tracking plan made with `definePlan` (from `eventrail/plan`): the client's event types are
   * inferred from it, and each track, identify and group call is checked against it as `planMode` says.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any plan: its types go to the class' parameters
  plan?: TrackingPlan<any, any, any>
  /**
   * What a call that breaks the plan does. `'report'`: sent as it is; a `violation` event, a count
   * in `stats().violations` and one process warning per event name. `'drop'`: not sent; its
   * callback (else `errorHandler`) gets a `PlanViolationError`. `'throw'`: refused like an invalid
   * message (thrown from the call when there is neither a callback nor an `errorHandler`).
   * `'off'`: types only. A schema that fails (throws, returns no Standard Schema result) is never
   * thrown: in `'report'` the message is sent unchecked and the `PlanSchemaError` reported; in
   * `'drop'` and `'throw'` the message is not sent and the `PlanSchemaError` is its outcome.
   * @defaultValue `'throw'` when `NODE_ENV` is `test`, else `'report'`
   */
  planMode?: PlanMode
  /**
   * Writes every accepted message to files in `spool.dir` before the call returns, and sends what
   * a previous process on the directory left there (see {@link SpoolOptions}, and the README, "A disk
   * spool"): `kill -9`, a crash, a restart and a long outage lose nothing. Node, Bun and Deno only.
   * @defaultValue none: messages are kept in memory only
   */
  spool?: SpoolOptions
}

/** Options after defaults and checks: what every stage after the constructor reads. */
export interface ResolvedOptions {
  readonly writeKey: string
  readonly host: string
  /** The `fallbackHosts` option, checked: the hosts after `host`, in order (none: empty). */
  readonly fallbackHosts: readonly string[]
  readonly flushAt: number
  readonly flushIntervalMs: number
  readonly enable: boolean
  readonly errorHandler: ErrorHandler | undefined
  readonly fetch: FetchLike | undefined
  readonly timeoutMs: number
  readonly maxRetries: number
  readonly retryBaseMs: number
  readonly retryCapMs: number
  readonly maxRetryTimeMs: number
  readonly maxQueueSize: number
  readonly maxQueueBytes: number
  /** The adaptive limits of requests in flight, or a fixed one when `maxInFlight` is set. */
  readonly inFlight: InFlightPolicy
  readonly maxRequestsPerSecond: number
  readonly compress: boolean
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined
  /** The plugins each message type goes through, or undefined when there are none. */
  readonly plugins: PluginChain | undefined
  readonly pluginTimeoutMs: number
  /** The `context` option, checked, or undefined. */
  readonly context: StaticContext | undefined
  /** The plan to check against, or undefined (none, or `planMode: 'off'`). */
  readonly plan: ResolvedPlan | undefined
  readonly planMode: PlanMode
  /** The `spool` option, checked, or undefined. */
  readonly spool: ResolvedSpool | undefined
}

/**
 * The adaptive limits of requests in flight used when `maxInFlight` is not set, chosen by
 * measurement (`npm run bench:latency` and `bench:in-flight`, bench/RESULTS.md, docs/decisions.md).
 * Every request: 1 to 64, from 32. With a service answering in 2 s, 1 alias in 6 needs about 64
 * requests in flight to deliver 2,000 messages within 15 s; 64 is also the keep-alive pool's
 * sockets per host; starting at 32 sends a burst of aliases without waiting several round trips.
 * Batch requests: 1 to 16, from 4, growing only while full batches wait: 4 was the best fixed
 * value for batches 20 ms away and 16 for batches 80 ms away (`bench:in-flight`), and a service
 * that holds requests gets 4 bodies of 500 KB, not 32.
 * Batches that are not full: at most 4, so free slots do not make batches smaller. The batch limit
 * grows only while a success comes back within twice the base round trip: against a service that
 * is already busy (the bench's sink on the same 2 cores), more batches would only queue there. The
 * limit over every request has no such guard: its requests are mostly aliases, small, and under a
 * quarter of requests failing the guard kept it at 1, where hung requests stalled everything.
 * Decreases: once per episode (a signal from an attempt started before the last decrease is not
 * counted), at most once a second while most answers succeed, and at once when most answers since
 * the last decrease are overload signals: against a service that serves 2 requests at a time and
 * answers 503 beyond, the 1 s interval alone let +1 per success outgrow the halving (the limit
 * stayed at 32 or more for 11 s); with decreases on a majority of overloads it converges to a few.
 * Without the 1 s interval, a quarter of requests failing (2.5 % hanging for 10 s) kept the limit
 * at ~15 and the bench's faults row took 52 s instead of 22 s.
 */
export const ADAPTIVE_IN_FLIGHT: InFlightPolicy = Object.freeze({
  requests: Object.freeze({
    floor: 1,
    ceiling: 64,
    initial: 32,
    decreaseIntervalMs: 1000,
    holdsSlotWhileWaiting: false,
    latencyTolerance: Infinity,
  }),
  batches: Object.freeze({
    floor: 1,
    ceiling: 16,
    initial: 4,
    decreaseIntervalMs: 1000,
    holdsSlotWhileWaiting: false,
    latencyTolerance: 2,
  }),
  partialBatches: 4,
})

/** Defaults of every option, in one place. */
export const DEFAULTS = Object.freeze({
  host: DEFAULT_HOST,
  flushAt: 20,
  flushInterval: 10_000,
  enable: true,
  timeout: 10_000,
  maxRetries: 10,
  retryDelay: 50,
  maxRetryDelay: 10_000,
  maxRetryTime: 60_000,
  maxQueueSize: 500_000,
  maxQueueBytes: 256 * 1024 * 1024,
  maxRequestsPerSecond: 500,
  compress: false,
  pluginTimeout: 5000,
})
