/** Most bytes of a response body read (and thrown away) so that its connection can be reused. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024

/** A response as the transport sees it: a Node stream (the default transport's, node-fetch's), WHATWG fetch's, or a FetchLike's with only `arrayBuffer()`. */
export interface DrainableResponse {
  readonly body?: unknown
  arrayBuffer?(): Promise<unknown>
}

interface NodeReadable {
  on(event: string, listener: (arg?: unknown) => void): unknown
  removeAllListeners(event: string): unknown
  resume(): unknown
  destroy(): unknown
}

interface WebReadable {
  getReader(): { read(): Promise<{ done: boolean; value?: { byteLength: number } }>; cancel(): Promise<void> }
}

/**
 * Reads a response body to its end and throws it away, so that a keep-alive connection goes back
 * to the pool, but never more than {@link MAX_RESPONSE_BODY_BYTES} and never for longer than
 * `timeoutMs`: past either, `abort()` is called (fetch then closes the connection) and the body is
 * cancelled. Nothing of the body is kept: the status and `Retry-After` are all the client needs.
 * Never rejects.
 */
export function drainResponseBody(response: DrainableResponse, timeoutMs: number, abort: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let isDone = false
    let cancel: () => void = () => undefined
    const finish = (isComplete: boolean): void => {
      if (isDone) return
      isDone = true
      clearTimeout(timer)
      if (!isComplete) {
        abort()
        cancel()
      }
      resolve()
    }
    // The request's own timeout covers its body too: a server that trickles its answer cannot hold a socket longer.
    const timer = setTimeout(() => finish(false), timeoutMs)
    ;(timer as { unref?: () => void }).unref?.()
    try {
      const body = response.body
      if (isWebReadable(body)) cancel = drainWeb(body, finish)
      else if (isNodeReadable(body)) cancel = drainNode(body, finish)
      else if (body == null && typeof response.arrayBuffer === 'function') {
        // A FetchLike without a body stream (the recorder): it alone knows its body; the timer bounds the wait.
        response.arrayBuffer().then(
          () => finish(true),
          () => finish(true),
        )
      } else finish(true)
    } catch {
      finish(false)
    }
  })
}

function drainWeb(body: WebReadable, finish: (isComplete: boolean) => void): () => void {
  const reader = body.getReader()
  let bytes = 0
  const pump = (): void => {
    reader.read().then(
      ({ done, value }) => {
        if (done) return finish(true)
        bytes += value?.byteLength ?? 0
        if (bytes > MAX_RESPONSE_BODY_BYTES) return finish(false)
        pump()
      },
      () => finish(true),
    )
  }
  pump()
  return () => void reader.cancel().catch(() => undefined)
}

function drainNode(body: NodeReadable, finish: (isComplete: boolean) => void): () => void {
  let bytes = 0
  body.on('data', (chunk) => {
    bytes += (chunk as { length?: number } | undefined)?.length ?? 0
    if (bytes > MAX_RESPONSE_BODY_BYTES) finish(false)
  })
  body.on('end', () => finish(true))
  // An error (our own abort included) ends the draining; the listener stays, so that no later
  // 'error' event is ever unhandled.
  body.on('error', () => finish(true))
  body.resume()
  return () => {
    body.removeAllListeners('data')
    body.destroy()
  }
}

function isWebReadable(body: unknown): body is WebReadable {
  return typeof body === 'object' && body !== null && typeof (body as WebReadable).getReader === 'function'
}

function isNodeReadable(body: unknown): body is NodeReadable {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as NodeReadable).on === 'function' &&
    typeof (body as NodeReadable).resume === 'function' &&
    typeof (body as NodeReadable).destroy === 'function'
  )
}
