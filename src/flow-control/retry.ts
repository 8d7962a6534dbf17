import { MAX_RETRY_AFTER_MS } from '../core/limits'

/** How failed requests are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  /** Base of the exponential backoff, ms. */
  readonly baseMs: number
  /** Longest backoff, ms. */
  readonly capMs: number
  /** Longest time from the first attempt until the request fails for good, ms. */
  readonly maxTotalMs: number
}

/**
 * Whether a response status is worth another attempt: 408, 429 and 5xx, except 501 (not
 * implemented) and 505 (HTTP version not supported), which will not change on a retry.
 */
export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 429) return true
  return status >= 500 && status <= 599 && status !== 501 && status !== 505
}

/** Retries before this many are capped at {@link SHORT_RETRY_CAP_MS}: an unlucky request is retried soon. */
export const SHORT_RETRIES = 7

/** The cap of the first {@link SHORT_RETRIES} backoffs, ms. */
export const SHORT_RETRY_CAP_MS = 1000

/**
 * Full-jitter exponential backoff: a random delay in [0, min(cap, base × 2^attempt)), where the
 * cap is 1 s for the first 7 retries and `capMs` after. Two phases: a request that is merely
 * unlucky (a flaky service) is retried within tens to hundreds of milliseconds, and the long
 * waits come only when the service keeps failing this request while it answers others (a
 * service that answers nobody opens the outage breaker first).
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const cap = attempt < SHORT_RETRIES ? Math.min(policy.capMs, SHORT_RETRY_CAP_MS) : policy.capMs
  return Math.floor(random() * Math.min(cap, policy.baseMs * 2 ** Math.min(attempt, 52)))
}

/**
 * Parses a `Retry-After` header: delay-seconds or an HTTP date. Returns milliseconds to wait,
 * capped at 30 s, or undefined when the header is missing, unreadable, zero, or a date that is
 * not in the future (a server clock behind ours): then the normal backoff applies, never "now".
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  if (header == null) return undefined
  const text = header.trim()
  if (text === '') return undefined
  let ms: number
  if (/^\d+(?:\.\d+)?$/.test(text)) ms = Number(text) * 1000
  else if (!/^[A-Za-z]/.test(text))
    return undefined // every HTTP-date form starts with a day name
  else {
    const date = Date.parse(text)
    if (Number.isNaN(date)) return undefined
    ms = date - nowMs
  }
  if (!(ms > 0)) return undefined
  return Math.min(Math.ceil(ms), MAX_RETRY_AFTER_MS)
}

/**
 * The wait before retry number `attempt` (0 for the first retry): the server's `Retry-After`
 * when it gave one, else the backoff. Undefined when no retry is left or the wait would end past
 * the time budget (`elapsedMs` already spent).
 */
export function nextRetryDelayMs(
  attempt: number,
  elapsedMs: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (attempt >= policy.maxRetries) return undefined
  const delay = retryAfterMs ?? backoffDelayMs(attempt, policy, random)
  return elapsedMs + delay > policy.maxTotalMs ? undefined : delay
}
