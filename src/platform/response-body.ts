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
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> }
}

/**
 * Reads a response body to its end and throws it away, so that a keep-alive connection goes back
 * to the pool, but never more than {@link MAX_RESPONSE_BODY_BYTES} and never for longer than
 * `timeoutMs`: past either, `abort()` is called (fetch then closes the connection) and the body is
 * cancelled. Only its first `keepBytes` bytes are kept (an error's explanation, for the error
 * message); resolves with them. Never rejects.
 */
export function drainResponseBody(response: DrainableResponse, timeoutMs: number, abort: () => void, keepBytes = 0): Promise<Uint8Array[]> {
  const kept: Uint8Array[] = []
  let keptBytes = 0
  const keep = (chunk: unknown): void => {
    if (keptBytes >= keepBytes || !(chunk instanceof Uint8Array)) return
    const part = chunk.subarray(0, keepBytes - keptBytes)
    kept.push(part)
    keptBytes += part.byteLength
  }
  return new Promise<Uint8Array[]>((resolve) => {
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
      resolve(kept)
    }
    // The request's own timeout covers its body too: a server that trickles its answer cannot hold a socket longer.
    const timer = setTimeout(() => finish(false), timeoutMs)
    ;(timer as { unref?: () => void }).unref?.()
    try {
      const body = response.body
      if (isWebReadable(body)) cancel = drainWeb(body, finish, keep)
      else if (isNodeReadable(body)) cancel = drainNode(body, finish, keep)
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

function drainWeb(body: WebReadable, finish: (isComplete: boolean) => void, keep: (chunk: unknown) => void): () => void {
  const reader = body.getReader()
  let bytes = 0
  const pump = (): void => {
    reader.read().then(
      ({ done, value }) => {
        if (done) return finish(true)
        keep(value)
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

function drainNode(body: NodeReadable, finish: (isComplete: boolean) => void, keep: (chunk: unknown) => void): () => void {
  let bytes = 0
  body.on('data', (chunk) => {
    keep(chunk)
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

const MAX_EXCERPT_CHARS = 200

/**
 * The first part of an error body as one line of text for an error message: control characters
 * and runs of white space become one space, at most 200 characters, quoted; undefined when empty.
 */
export function bodyExcerpt(chunks: readonly Uint8Array[]): string | undefined {
  if (chunks.length === 0 || typeof TextDecoder === 'undefined') return undefined
  const decoder = new TextDecoder('utf-8', { fatal: false })
  let text = ''
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true })
  const line = [...text]
    .map((c) => (c < ' ' || c === '\u007f' ? ' ' : c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
  if (line === '') return undefined
  return JSON.stringify(line.length > MAX_EXCERPT_CHARS ? line.slice(0, MAX_EXCERPT_CHARS) + '…' : line)
}
