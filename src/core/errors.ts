// Each class is recognised by a brand, a registered symbol its instances carry: one brand across
// copies of the library (two installed versions, a bundle beside the package) and across realms (a worker, a vm context), where two copies of a
// class are two classes and a plain `instanceof` would say no.
const BRAND = Symbol.for('eventrail.error')

/** Gives `Class` its brand: its instances (and those of its subclasses) answer to its `instanceof` and `is()` in every copy of the library. */
export function brandError(Class: abstract new (...args: never[]) => Error, name: string): void {
  const key = Symbol.for(`eventrail.error.${name}`)
  Object.defineProperty(Class, BRAND, { value: key })
  Object.defineProperty(Class.prototype, key, { value: true })
}

/**
 * Base class of every error the library reports. `instanceof` and the static `is()` of each
 * class work across copies of the library (two installed versions, a bundle beside the package) and
 * across realms (see {@link isEventrailError}).
 */
export class EventrailError extends Error {
  override name = 'EventrailError'

  static {
    brandError(this, 'EventrailError')
  }

  /** Whether `value` is an error of this class (or a subclass), from any copy of the library. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    const key = (this as unknown as { readonly [BRAND]?: symbol })[BRAND]
    return typeof value === 'object' && value !== null && key !== undefined && (value as Record<symbol, unknown>)[key] === true
  }

  /**
   * Whether `value` is an error of this class or a subclass, thrown by any copy of the library
   * (the ESM or the CommonJS build, another realm): `DeliveryError.is(err)`.
   * @example
   * ```ts
   * if (DeliveryError.is(outcome.error)) console.log(outcome.error.reason, outcome.error.status)
   * ```
   */
  static is<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return (this as unknown as { [Symbol.hasInstance](v: unknown): boolean })[Symbol.hasInstance](value)
  }
}

/**
 * Whether `value` is an error of eventrail, from any copy of the library (the ESM or the CommonJS
 * build, another realm).
 * @example
 * ```ts
 * analytics.on('error', (err) => { if (isEventrailError(err)) metrics.increment(err.name) })
 * ```
 */
export function isEventrailError(value: unknown): value is EventrailError {
  return EventrailError.is(value)
}

/**
 * A message or an option breaks a rule of the spec. The text names the field and the rule,
 * e.g. `track: "event" is required and must be a non-empty string`.
 */
export class ValidationError extends EventrailError {
  override name = 'ValidationError'

  static {
    brandError(this, 'ValidationError')
  }
  /** The field that broke the rule (`event`, `userId`, `flushAt`, …). */
  readonly field: string
  /** The rule, in words. */
  readonly rule: string
  /** Where the rule applies: the method (`track`), `Analytics` for an option, or undefined. */
  readonly where: string | undefined

  constructor(field: string, rule: string, where?: string, options?: ErrorOptions) {
    super(`${where ? `${where}: ` : ''}"${field}" ${rule}`, options)
    this.field = field
    this.rule = rule
    this.where = where
  }
}

/**
 * A message whose serialized form exceeds 32 KB (32,768 bytes of UTF-8 JSON); it is never sent.
 * A message far over the limit is refused as soon as that is known, before it is serialized in
 * full: `bytes` is then a lower bound (`isLowerBound` is true).
 */
export class MessageTooLargeError extends ValidationError {
  override name = 'MessageTooLargeError'

  static {
    brandError(this, 'MessageTooLargeError')
  }
  /** The message's size in bytes, as it would be sent (at least this many when `isLowerBound`). */
  readonly bytes: number
  /** True when the message was refused before it was serialized in full: `bytes` is a lower bound. */
  readonly isLowerBound: boolean

  constructor(where: string, bytes: number, limit: number, isLowerBound = false) {
    super('message', `is ${isLowerBound ? 'at least ' : ''}${bytes} bytes serialized, more than the limit of ${limit} bytes`, where)
    this.bytes = bytes
    this.isLowerBound = isLowerBound
  }
}

/**
 * Why a request failed for good: `status` (the service answered a status that is not retried, or
 * the last retry's), `timeout` (the last attempt got no answer in time), `network` (no answer: a
 * reset, a refused connection), `redirect` (a 3xx, never followed), `outage` (failed at once: the
 * outage breaker is open), `expired` (no time left within `maxRetryTime`).
 */
export type DeliveryFailure = 'status' | 'timeout' | 'network' | 'redirect' | 'outage' | 'expired'

/** What a {@link DeliveryError} saw, beside the standard `cause`. */
export interface DeliveryDetails extends ErrorOptions {
  /** Why it failed; by default `timeout` when `cause` is an attempt's timeout, `status` when there is a status, else `network`. */
  readonly reason?: DeliveryFailure
  /** The URL of the request (the host's path prefix included; never a user name or password). */
  readonly url?: string
  /** The beginning of what the service answered, when it said something. */
  readonly body?: string
  /** The `Retry-After` the service asked for, in milliseconds, when it asked. */
  readonly retryAfterMs?: number
}

/**
 * An attempt that got no answer within its `timeout`: the reason of its abort, and the `cause` of
 * a {@link DeliveryError} whose `reason` is `timeout`.
 * @internal
 */
export class AttemptTimeout extends Error {
  override name = 'TimeoutError'
}

/**
 * A request failed for good: a network error, a timeout or an HTTP status that is not retried,
 * or the retries ran out. Why is a field, `reason`, with what the client saw: `url`, `status`
 * (the last HTTP status when there was one), `body` (the beginning of the service's answer) and
 * `retryAfterMs`; the network error, when there was one, is in `cause`.
 */
export class DeliveryError extends EventrailError {
  override name = 'DeliveryError'

  static {
    brandError(this, 'DeliveryError')
  }

  /** Why the request failed (see {@link DeliveryFailure}). */
  readonly reason: DeliveryFailure
  /** The last HTTP status received, if any. */
  readonly status: number | undefined
  /** How many attempts were made. */
  readonly attempts: number
  /** The URL of the request, when known. */
  readonly url: string | undefined
  /** The beginning of what the service answered, when it said something. */
  readonly body: string | undefined
  /** The `Retry-After` the service asked for (ms), when it asked. */
  readonly retryAfterMs: number | undefined

  constructor(message: string, status?: number, attempts = 1, details?: DeliveryDetails) {
    super(message, details?.cause === undefined ? undefined : { cause: details.cause })
    this.status = status
    this.attempts = attempts
    this.reason = details?.reason ?? (details?.cause instanceof AttemptTimeout ? 'timeout' : status !== undefined ? 'status' : 'network')
    this.url = details?.url
    this.body = details?.body
    this.retryAfterMs = details?.retryAfterMs
  }
}

/**
 * The service is down: the outage breaker opened (several attempts in a row failed over a second
 * or more with nothing getting through, or two timed out), and the message failed at once instead
 * of being retried for a minute. `status` is the last HTTP status when there was one; the last
 * network error, when there was one, is in `cause`. While the breaker is open, one request at a
 * time probes the service (every 1 s, growing to 30 s; about every second while a `flush()` is
 * awaited); messages queued meanwhile ride the next probe, and are delivered once it gets through.
 * Its `reason` is `outage`. With a spool nothing fails: the error (once per outage, and to a
 * `deliver.*` with `kept: true`) says that the message is kept in the spool on disk and will be
 * delivered once the service is back.
 */
export class ServiceUnavailableError extends DeliveryError {
  override name = 'ServiceUnavailableError'

  static {
    brandError(this, 'ServiceUnavailableError')
  }

  /** The last failure that the breaker saw, in words (`the service answered 503 (…)`, a network error's message). */
  readonly lastFailure: string

  constructor(message: string, status?: number, attempts = 1, details?: DeliveryDetails & { readonly lastFailure?: string }) {
    super(message, status, attempts, { ...details, reason: 'outage' })
    this.lastFailure = details?.lastFailure ?? (status !== undefined ? `the service answered ${status}` : 'no answer')
  }
}

/**
 * The service kept refusing this one message while it accepted the others: its request failed
 * (5xx other than 503, 408, no answer) and was split, as a too-large batch is, until the message
 * stood alone, and it went on failing alone, retried as usual, while requests that started after
 * its batch first failed were accepted. The message itself is the problem (the service cannot
 * take it), not the service: it fails with this error instead of holding back the others or
 * opening the outage breaker, and with a spool its record is acked, not sent again on every
 * start. `status` is the last HTTP status when there was one.
 */
export class PoisonMessageError extends DeliveryError {
  override name = 'PoisonMessageError'

  static {
    brandError(this, 'PoisonMessageError')
  }

  /** Always true: what the spool reads (it decides on fields, not on classes). */
  readonly isPoison = true
}

/** A message was refused because the queue already held `maxQueueSize` messages or `maxQueueBytes` bytes. */
export class QueueFullError extends EventrailError {
  override name = 'QueueFullError'

  static {
    brandError(this, 'QueueFullError')
  }
}

/** A message was refused because `closeAndFlush()` had been called on the instance. */
export class ClosedError extends EventrailError {
  override name = 'ClosedError'

  static {
    brandError(this, 'ClosedError')
  }
}

/** A message had no outcome before the `closeAndFlush({ timeout })` deadline; it may or may not have arrived. */
export class TimeoutError extends EventrailError {
  override name = 'TimeoutError'

  static {
    brandError(this, 'TimeoutError')
  }
}

/**
 * The disk spool cannot write (`code`: `ENOSPC` for a full disk, `EROFS`, `EACCES` …): the client
 * goes on in memory, as without a spool, and writes to the disk again once it takes writes (it
 * tries every 30 s). Reported once to `error` listeners and `errorHandler`, not to callbacks:
 * no message is refused for it.
 */
export class SpoolError extends EventrailError {
  override name = 'SpoolError'

  static {
    brandError(this, 'SpoolError')
  }

  constructor(
    /** The file system's error code. */
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A message withheld for consent (`eventrail/context`, consent mode `'enforce'`): the request's
 * consent does not cover every category the message belongs to, so it was not queued and is
 * never sent. Its outcome (callback, `deliver.*`, the `drop` event) carries this error, and
 * `stats().refusedBy.consent` counts it. `categories` are the message's categories that were not
 * consented; `gpc` is true when the request's Global Privacy Control signal (`Sec-GPC: 1`) turned
 * one of them off.
 */
export class ConsentError extends EventrailError {
  override name = 'ConsentError'

  static {
    brandError(this, 'ConsentError')
  }

  constructor(
    message: string,
    /** The message's categories that the request's consent does not cover. */
    readonly categories: readonly string[],
    /** True when `Sec-GPC: 1` withdrew one of those categories. */
    readonly gpc: boolean,
  ) {
    super(message)
  }
}
