/** Base class of every error the library reports. */
export class EventrailError extends Error {
  override name = 'EventrailError'
}

/**
 * A message or an option breaks a rule of the spec. The text names the field and the rule,
 * e.g. `track: "event" is required and must be a non-empty string`.
 */
export class ValidationError extends EventrailError {
  override name = 'ValidationError'
  /** The field that broke the rule (`event`, `userId`, `flushAt`, …). */
  readonly field: string
  /** The rule, in words. */
  readonly rule: string

  constructor(field: string, rule: string, where?: string, options?: ErrorOptions) {
    super(`${where ? `${where}: ` : ''}"${field}" ${rule}`, options)
    this.field = field
    this.rule = rule
  }
}

/**
 * A message whose serialized form exceeds 32 KB (32,768 bytes of UTF-8 JSON); it is never sent.
 * A message far over the limit is refused as soon as that is known, before it is serialized in
 * full: `bytes` is then a lower bound (`isLowerBound` is true).
 */
export class MessageTooLargeError extends ValidationError {
  override name = 'MessageTooLargeError'
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
 * A request failed for good: a network error, a timeout or an HTTP status that is not retried,
 * or the retries ran out. `status` is the last HTTP status when there was one; the network error,
 * when there was one, is in `cause`.
 */
export class DeliveryError extends EventrailError {
  override name = 'DeliveryError'
  /** The last HTTP status received, if any. */
  readonly status: number | undefined
  /** How many attempts were made. */
  readonly attempts: number

  constructor(message: string, status?: number, attempts = 1, options?: ErrorOptions) {
    super(message, options)
    this.status = status
    this.attempts = attempts
  }
}

/**
 * The service is down: the outage breaker opened (several attempts in a row failed over a second
 * or more with nothing getting through, or two timed out), and the message failed at once instead
 * of being retried for a minute. `status` is the last HTTP status when there was one; the last
 * network error, when there was one, is in `cause`. While the breaker is open, one request at a
 * time probes the service (every 1 s, growing to 30 s; about every second while a `flush()` is
 * awaited); messages queued meanwhile ride the next probe, and are delivered once it gets through.
 */
export class ServiceUnavailableError extends DeliveryError {
  override name = 'ServiceUnavailableError'
}

/** A message was refused because the queue already held `maxQueueSize` messages or `maxQueueBytes` bytes. */
export class QueueFullError extends EventrailError {
  override name = 'QueueFullError'
}

/** A message was refused because `closeAndFlush()` had been called on the instance. */
export class ClosedError extends EventrailError {
  override name = 'ClosedError'
}

/** A message had no outcome before the `closeAndFlush({ timeout })` deadline; it may or may not have arrived. */
export class TimeoutError extends EventrailError {
  override name = 'TimeoutError'
}

/**
 * The disk spool cannot write (`code`: `ENOSPC` for a full disk, `EROFS`, `EACCES` …): the client
 * goes on in memory, as without a spool, and writes to the disk again once it takes writes (it
 * tries every 30 s). Reported once to `error` listeners and `errorHandler`, not to callbacks:
 * no message is refused for it.
 */
export class SpoolError extends EventrailError {
  override name = 'SpoolError'

  constructor(
    /** The file system's error code. */
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The service kept refusing this one message while it accepted the others: its request failed
 * (5xx other than 503, 408, no answer) and was split, as a too-large batch is, until the message stood alone, and
 * it went on failing alone, retried as usual, while requests that started after its batch first
 * failed were accepted. The message itself is the problem (the service cannot take it), not the
 * service: it fails with this error instead of holding back the others or opening the outage
 * breaker, and with a spool its record is acked, not sent again on every start. `status` is the
 * last HTTP status when there was one.
 */
export class PoisonMessageError extends DeliveryError {
  override name = 'PoisonMessageError'
  /** Always true: what code that cannot use `instanceof` (the spool, another copy of the library) reads. */
  readonly isPoison = true
}
