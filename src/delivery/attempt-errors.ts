import { DeliveryError, PoisonMessageError, TimeoutError } from '../core/errors'

// The errors a request ends with when the attempt loop gives up on it (delivery/deliver.ts).

/** `1 attempt`, `3 attempts`. */
export function attemptsText(attempts: number): string {
  return attempts === 1 ? '1 attempt' : `${attempts} attempts`
}

/** A status and, when the service said why, the beginning of what it said. */
export function answered(status: number, body: string | undefined): string {
  return body === undefined ? String(status) : `${status} (${body})`
}

/** What the last attempt of a request said. */
export interface LastAttempt {
  readonly status: number | undefined
  readonly said: string | undefined
  readonly error: Error | undefined
  readonly attempts: number
}

/**
 * The error of a request to `url` whose retries ran out: a PoisonMessageError for one message that
 * failed alone while the service accepted other requests.
 */
export function gaveUp(url: string, last: LastAttempt, isPoison: boolean): DeliveryError {
  const { status, error, attempts } = last
  const reason = status === undefined ? (error?.message ?? 'network error') : `the service answered ${answered(status, last.said)}`
  const details = { cause: error, url, body: last.said }
  if (!isPoison) return new DeliveryError(`${url}: ${reason} (gave up after ${attemptsText(attempts)})`, status, attempts, details)
  return new PoisonMessageError(
    `${url}: ${reason} to this message in a request of its own, again and again, while it accepted other requests: the message itself is what fails (gave up after ${attemptsText(attempts)})`,
    status,
    attempts,
    details,
  )
}

/**
 * The error of a request to `url` with no time left for a retry within `limitMs` (maxRetryTime):
 * its `reason` is `expired`; the last attempt's status, answer and error, when there was one, are
 * its `status`, `body` and `cause`.
 */
export function outOfTime(url: string, limitMs: number, last: LastAttempt | undefined): DeliveryError {
  const attempts = last?.attempts ?? 0
  const said =
    last === undefined
      ? ''
      : `; the last answer: ${last.status === undefined ? (last.error?.message ?? 'none') : answered(last.status, last.said)}`
  return new DeliveryError(
    `${url}: no time left for a retry within maxRetryTime (${limitMs} ms from the oldest message's call; gave up after ${attemptsText(attempts)}${said})`,
    last?.status,
    attempts,
    { reason: 'expired', url, body: last?.said, cause: last?.error },
  )
}

/** The error of a request the client stopped waiting for (the closeAndFlush timeout). */
export function givenUp(path: string, cause: unknown): TimeoutError {
  return new TimeoutError(`${path}: the client stopped waiting for this request (closeAndFlush timeout)`, { cause })
}
