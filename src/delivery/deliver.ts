import { DeliveryError, TimeoutError } from '../errors'
import type { AttemptSignal } from '../queue/in-flight-limit'
import { setUnrefTimeout } from '../timers'
import { isRetryableStatus, nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry'
import type { RequestBody, Transport, TransportResponse } from './transport'

/** One retry about to happen: reported to `on('retry')` listeners. */
export interface RetryInfo {
  /** The path of the request, e.g. `/v1/batch`. */
  readonly path: string
  /** The number of the retry about to be made, from 1. */
  readonly attempt: number
  /** How long the client waits before it, ms. */
  readonly delayMs: number
  /** The status that failed, when the failure was an HTTP answer. */
  readonly status?: number
  /** The network error or timeout, when there was no answer. */
  readonly error?: Error
}

/** What the attempt loop needs: the transport, the policy, and the scheduler's clock and timers. */
export interface DeliveryContext {
  readonly transport: Transport
  readonly policy: RetryPolicy
  readonly timeoutMs: number
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  /** An attempt to `path` that started at `startedMs` ended with what it said about the service. */
  readonly attemptEnded: (path: string, signal: AttemptSignal, startedMs: number) => void
  /** The request starts to wait for a retry: it may lend its in-flight slot meanwhile. */
  readonly pauseSlot: () => void
  /** Resolves when the request, its wait over, holds an in-flight slot again. */
  readonly resumeSlot: (signal: AbortSignal) => Promise<void>
  /** Resolves when a retry may start under the request-rate limit. */
  readonly rateSlot: (signal: AbortSignal) => Promise<void>
  readonly now: () => number
  readonly random: () => number
  readonly onRetry: (info: RetryInfo) => void
}

/**
 * Sends one request body until it is accepted (2xx), retrying network errors, timeouts, 408,
 * 429 and 5xx (but 501 and 505) with backoff or `Retry-After`. Every attempt sends the same body,
 * so the same `messageId`s, and the service can de-duplicate. The caller holds the request's
 * in-flight slot; every attempt reports what it said about the service (success, overload, or
 * neither), and the wait before a retry may lend the slot out.
 * @param stop - aborted when the client gives up on the request (the `closeAndFlush` timeout): one
 * signal per request, so nothing of one request (in Workers: of one incoming request) touches another.
 * @throws DeliveryError when it fails for good; TimeoutError when `stop` aborts it.
 */
export async function deliverRequest(path: string, body: RequestBody, ctx: DeliveryContext, stop: AbortSignal): Promise<void> {
  const startedMs = ctx.now()
  for (let attempt = 0; ; attempt++) {
    let status: number | undefined
    let retryAfterMs: number | undefined
    let error: Error | undefined
    const attemptStartedMs = ctx.now()
    let signal: AttemptSignal = 'neutral'
    try {
      // No attempt outlives the time budget of the whole request.
      const timeoutMs = Math.max(1, Math.min(ctx.timeoutMs, ctx.policy.maxTotalMs - (attemptStartedMs - startedMs)))
      const response = await attemptOnce(path, body, ctx, timeoutMs, stop)
      status = response.status
      signal = status >= 200 && status < 300 ? 'success' : isRetryableStatus(status) ? 'overload' : 'neutral'
      if (signal === 'success') return
      if (!isRetryableStatus(status)) {
        throw new DeliveryError(`${path}: the service answered ${status}, which is not retried`, status, attempt + 1)
      }
      retryAfterMs = parseRetryAfterMs(response.retryAfter, ctx.now())
    } catch (err) {
      if (err instanceof DeliveryError) throw err
      if (stop.aborted) throw givenUp(path, stop.reason)
      // A reset, a refused connection or a timeout: the service (or the way to it) is struggling.
      signal = 'overload'
      error = err instanceof Error ? err : new Error(String(err))
    } finally {
      ctx.attemptEnded(path, signal, attemptStartedMs)
    }
    const delayMs = nextRetryDelayMs(attempt, ctx.now() - startedMs, retryAfterMs, ctx.policy, ctx.random)
    if (delayMs === undefined) {
      const reason = status === undefined ? (error?.message ?? 'network error') : `the service answered ${status}`
      throw new DeliveryError(`${path}: ${reason} (gave up after ${attempt + 1} attempts)`, status, attempt + 1, {
        cause: error,
      })
    }
    ctx.onRetry({ path, attempt: attempt + 1, delayMs, status, error })
    await waitForRetry(path, delayMs, ctx, stop, { status, attempts: attempt + 1 })
  }
}

async function waitForRetry(
  path: string,
  delayMs: number,
  ctx: DeliveryContext,
  stop: AbortSignal,
  last: { status: number | undefined; attempts: number },
): Promise<void> {
  ctx.pauseSlot()
  try {
    await ctx.sleep(delayMs, stop)
    await ctx.resumeSlot(stop)
    await ctx.rateSlot(stop)
  } catch (err) {
    if (stop.aborted) throw givenUp(path, stop.reason)
    // Not the closeAndFlush timeout: something failed while waiting (a timer the runtime refused).
    const cause = err instanceof Error ? err : new Error(String(err))
    throw new DeliveryError(`${path}: the wait before a retry failed (${cause.message})`, last.status, last.attempts, { cause })
  }
}

async function attemptOnce(
  path: string,
  body: RequestBody,
  ctx: DeliveryContext,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<TransportResponse> {
  if (stop.aborted) throw stop.reason
  const controller = new AbortController()
  const abort = (): void => controller.abort(stop.reason)
  stop.addEventListener('abort', abort, { once: true })
  const timer = setUnrefTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)
  try {
    // Settles on the abort even when a custom fetch ignores its signal: no attempt outlives its timeout.
    return await new Promise<TransportResponse>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
      ctx.transport.send(path, body, controller.signal).then(resolve, (err: unknown) => {
        // An abort surfaces as an AbortError; the reason (our timeout, or the shutdown) says more.
        reject(controller.signal.aborted ? controller.signal.reason : err)
      })
    })
  } finally {
    timer.cancel()
    stop.removeEventListener('abort', abort)
  }
}

function givenUp(path: string, cause: unknown): TimeoutError {
  return new TimeoutError(`${path}: the client stopped waiting for this request (closeAndFlush timeout)`, { cause })
}
