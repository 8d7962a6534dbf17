import { AttemptTimeout, DeliveryError } from '../core/errors'
import { answered, gaveUp, givenUp, outOfTime, type LastAttempt } from './attempt-errors'
import type { AttemptSignal } from '../flow-control/in-flight-limit'
import { setUnrefTimeout } from '../platform/timers'
import type { AttemptVerdict } from '../flow-control/breaker'
import { afterFailure, FAILURES_TO_SPLIT, SplitBatch, splitTrouble } from './isolation'
import { describeRedirect, isRedirectStatus } from './redirect'
import { waitForRetry } from './retry-wait'
import { isRetryableStatus, nextRetryDelayMs, parseRetryAfterMs } from '../flow-control/retry'
import type { Release } from '../platform/socket-gate'
import type { RequestBody, Transport, TransportResponse } from '../platform/transport'
import type { DeliveryContext, RequestInfo, Route } from './attempt-types'

export type { AttemptReport, DeliveryContext, RequestInfo, RetryInfo, Route } from './attempt-types'

/**
 * Sends one request body until it is accepted (2xx), retrying network errors, timeouts, 408,
 * 429 and 5xx (but 501 and 505) with backoff or `Retry-After`. Every attempt sends the same body,
 * so the same `messageId`s, and the service can de-duplicate. The caller holds the request's
 * in-flight slot; every attempt reports what it said about the service, and the wait before a
 * retry may lend the slot out. No retry starts while the outage breaker is open, and none ends
 * past `maxRetryTime` from the time the request's oldest message was queued. Each attempt goes
 * where `ctx.route` says (with `fallbackHosts`, the first host that is not down; now and then, as
 * its probe, one that is down: a probe that fails is not a retry, and the request goes on at once
 * to the host that answers). A redirect is never followed: the write key and the messages go only
 * to the hosts the user listed. A request of several
 * messages that keeps failing while the service accepts others is not retried whole: it throws a
 * {@link SplitBatch} for the caller to send its halves; one message that keeps failing alone so
 * fails with a {@link PoisonMessageError}. Those failures are not evidence of an outage.
 * @param stop - aborted when the client gives up on the request (the `closeAndFlush` timeout): one
 * signal per request, so nothing of one request (in Workers: of one incoming request) touches another.
 * @throws DeliveryError when it fails for good (a ServiceUnavailableError while the breaker is
 * open, a PoisonMessageError for a message that fails alone); SplitBatch to be split; TimeoutError
 * when `stop` aborts it.
 */
export async function deliverRequest(
  path: string,
  body: RequestBody,
  ctx: DeliveryContext,
  stop: AbortSignal,
  request: RequestInfo,
): Promise<void> {
  const { sinceMs, isProbe } = request
  let trouble = request.trouble
  let failures = 0
  let last: LastAttempt | undefined
  // `maxRetries` counts per host: a request that moves to a fallback host gets its retries there
  // too (with `fallbackHosts` only; every request's time stays bounded by `maxRetryTime`).
  let host: string | undefined
  let hostAttempt = 0
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      const outage = ctx.outage(path)
      if (outage !== undefined) throw outage
    }
    let status: number | undefined
    let retryAfterMs: number | undefined
    let error: Error | undefined
    let said: string | undefined
    const route = ctx.route(isProbe && attempt === 0)
    const url = `${route.host}${path}`
    // A socket of the shared pool first: the timeout runs only while the request can be on the wire.
    const release = await acquireSocket(path, route, stop)
    const startedMs = ctx.now()
    // Every request makes its first attempt (up to maxRetryTime long), however long its messages
    // waited for it; no retry outlives their time budget (maxRetryTime from the oldest one's call).
    const budgetMs = attempt === 0 ? ctx.policy.maxTotalMs : ctx.policy.maxTotalMs - (startedMs - sinceMs)
    if (budgetMs <= 0) {
      release?.()
      route.cancel()
      throw outOfTime(url, ctx.policy.maxTotalMs, last)
    }
    const timeoutMs = Math.max(1, Math.min(ctx.timeoutMs, budgetMs))
    let signal: AttemptSignal = 'neutral'
    let verdict: AttemptVerdict = 'alive'
    let isBatchProblem = false
    try {
      const response = await attemptOnce(path, body, route.transport, timeoutMs, stop)
      status = response.status
      signal = status >= 200 && status < 300 ? 'success' : isRetryableStatus(status) ? 'overload' : 'neutral'
      verdict = status === 408 || (status >= 500 && isRetryableStatus(status)) ? 'failed' : 'alive'
      if (signal === 'success') return
      if (isRedirectStatus(status)) {
        throw new DeliveryError(`${url}: ${describeRedirect(status, response.location)}`, status, attempt + 1, {
          reason: 'redirect',
          url,
        })
      }
      if (!isRetryableStatus(status)) {
        throw new DeliveryError(
          `${url}: the service answered ${answered(status, response.body)}, which is not retried`,
          status,
          attempt + 1,
          { url, body: response.body },
        )
      }
      said = response.body
      retryAfterMs = parseRetryAfterMs(response.retryAfter, ctx.now())
    } catch (err) {
      if (err instanceof DeliveryError) throw err
      if (stop.aborted) throw givenUp(path, stop.reason)
      // A reset, a refused connection or a timeout: the service (or the way to it) is struggling.
      signal = 'overload'
      error = err instanceof Error ? err : new Error(String(err))
      // A timeout cut short by the time budget says less about the service than a full one.
      verdict = err instanceof AttemptTimeout && timeoutMs === ctx.timeoutMs ? 'timeout' : 'failed'
    } finally {
      release?.()
      // A 503 says the service is busy or down, never that the batch is wrong: it is not isolated.
      if (verdict !== 'alive' && !route.isProbe && status !== 503) {
        failures += 1
        ;({ trouble, isBatchProblem } = afterFailure(trouble, startedMs, ctx.lastAcceptedStartMs(route.host)))
        request.troubled?.(trouble)
      }
      ctx.attemptEnded(path, {
        signal,
        verdict,
        startedMs,
        host: route.host,
        isProbe: route.isProbe,
        isBatchProblem,
        status,
        body: said,
        error,
      })
    }
    const outage = ctx.outage(path)
    if (outage !== undefined) throw outage
    // A host that is down was probed with this attempt, and is still down: the request goes on at
    // once to the host that answers, as if this attempt had not been made.
    if (route.isProbe && !isProbe && ctx.retryWaitCapMs(route.host) === 0) {
      attempt -= 1
      continue
    }
    hostAttempt = route.host === host ? hostAttempt + 1 : 0
    host = route.host
    const delayMs = nextRetryDelayMs(hostAttempt, ctx.now() - sinceMs, retryAfterMs, ctx.policy, ctx.random)
    const failure = { status, said, error, attempts: attempt + 1 }
    last = failure
    // With no retry left (or no time), a batch problem splits at once: the halves each make a first
    // attempt, as every request does, rather than the whole batch failing with what one message did.
    const halves =
      delayMs !== undefined
        ? splitTrouble(request.count, failures, trouble, isBatchProblem)
        : isBatchProblem
          ? splitTrouble(request.count, FAILURES_TO_SPLIT, trouble, true)
          : undefined
    if (halves !== undefined) {
      // Its messages go again at once, in halves: for the counts, that is this request's retry.
      ctx.onRetry({ path, attempt: attempt + 1, delayMs: 0, status, error })
      throw new SplitBatch(halves)
    }
    if (delayMs === undefined) throw gaveUp(url, failure, isBatchProblem && request.count === 1)
    // A wait the service asked for is kept; the backoff is shortened while failures build a run,
    // and skipped when the host that failed is down and another takes the requests (cap 0).
    const capMs = ctx.retryWaitCapMs(route.host)
    const waitMs = capMs === 0 ? 0 : retryAfterMs === undefined ? Math.min(delayMs, capMs) : delayMs
    ctx.onRetry({ path, attempt: attempt + 1, delayMs: waitMs, status, error })
    await waitForRetry(path, waitMs, ctx, stop, { status, attempts: attempt + 1 }, request.place)
  }
}

async function acquireSocket(path: string, route: Route, stop: AbortSignal): Promise<Release | undefined> {
  if (route.transport.acquire === undefined) return undefined
  try {
    return await route.transport.acquire(stop)
  } catch (err) {
    route.cancel()
    throw stop.aborted ? givenUp(path, stop.reason) : err
  }
}

async function attemptOnce(
  path: string,
  body: RequestBody,
  transport: Transport,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<TransportResponse> {
  if (stop.aborted) throw stop.reason
  const controller = new AbortController()
  const abort = (): void => controller.abort(stop.reason)
  stop.addEventListener('abort', abort, { once: true })
  const timer = setUnrefTimeout(() => controller.abort(new AttemptTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs)
  try {
    // Settles on the abort even when a custom fetch ignores its signal: no attempt outlives its timeout.
    return await new Promise<TransportResponse>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })
      transport.send(path, body, controller.signal).then(resolve, (err: unknown) => {
        // An abort surfaces as an AbortError; the reason (our timeout, or the shutdown) says more.
        reject(controller.signal.aborted ? controller.signal.reason : err)
      })
    })
  } finally {
    timer.cancel()
    stop.removeEventListener('abort', abort)
  }
}
