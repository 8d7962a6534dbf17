import type { IncomingMessage, ServerResponse } from 'node:http'
import { recordHeaders } from './page/guard'
import { MAX_BATCH_BYTES, MAX_MESSAGE_BYTES } from '../core/limits'
import { readBody } from './body'
import { oversizedBatchItem } from './batch-size'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../message/json-depth'
import { judgeRequest } from './judge-request'
import { planViolations } from './plan-check'
import type { ResolvedCollectorOptions } from './options'
import { checkContentType, checkWriteKey } from './request-rules'
import type { RecordStore } from './store'
import type { MessageKind } from './verdict'

/** Endpoints of the wire interface: path to the kind of body it takes. */
export const ENDPOINTS: ReadonlyMap<string, MessageKind | 'batch'> = new Map([
  ['/v1/identify', 'identify'],
  ['/v1/track', 'track'],
  ['/v1/page', 'page'],
  ['/v1/screen', 'screen'],
  ['/v1/group', 'group'],
  ['/v1/alias', 'alias'],
  ['/v1/batch', 'batch'],
])

/**
 * Answers one `POST /v1/*` request as the wire spec says: 400 when the body is over its limit
 * (32 KB for one message, 500 KB for a batch, 32 KB per batch item) or is not valid JSON, 200
 * otherwise. Every message gets a record with its verdict before the answer goes out, so a
 * caller that awaited its request finds its messages in `collector.messages`. While the `out`
 * file is behind, the request is held (back-pressure) until the file has room.
 */
export async function ingest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  endpoint: MessageKind | 'batch',
  store: RecordStore,
  options: ResolvedCollectorOptions,
): Promise<void> {
  const receivedAtMs = Date.now()
  const receivedAt = new Date(receivedAtMs).toISOString()
  const requestId = store.nextRequestId()
  const result = await readBody(req, endpoint === 'batch' ? MAX_BATCH_BYTES : MAX_MESSAGE_BYTES)
  if (result.kind === 'aborted') return
  const request = { id: requestId, receivedAt, method: 'POST', path, headers: recordHeaders(req.headers), bytes: result.wireBytes }
  const refuse = (error: string): void => {
    store.addRequest({ ...request, status: 400, error, messages: 0 })
    reply(res, 400, { success: false, error })
  }
  if (result.kind === 'refused') return refuse(result.error)
  if (nestsDeeperThan(result.text, MAX_JSON_DEPTH))
    return refuse(`the body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`)
  let body: unknown
  try {
    body = JSON.parse(result.text)
  } catch (err) {
    return refuse(`the body is not valid JSON (${err instanceof Error ? err.message : String(err)})`)
  }
  const oversized = endpoint === 'batch' ? oversizedBatchItem(body) : undefined
  if (oversized !== undefined) return refuse(oversized)

  const credentials = checkWriteKey(req.headers.authorization, options.writeKeys)
  const judgements = judgeRequest({
    endpoint,
    body,
    credentials,
    contentTypeDrop: checkContentType(req.headers['content-type']),
    receivedAtMs,
    ip: clientIp(req),
    rules: options,
  })
  // The `out` file behind (a disk slower than the traffic): the request waits, unrecorded, until
  // the file has room, so the sender slows down and no record it was told was taken is left out.
  // A sender that gave up meanwhile (its timeout, the collector closing) had nothing recorded.
  await store.room()
  if (res.destroyed || req.socket.destroyed) return
  const plan = options.plan
  for (const judgement of judgements) {
    // The plan's verdict goes beside the service's: only on what the service would accept.
    const violations =
      plan !== undefined && judgement.verdict === 'accepted' && isPlanned(judgement.type)
        ? planViolations(plan, judgement.type, judgement.message)
        : undefined
    store.addMessage({
      requestId,
      receivedAt,
      path,
      writeKey: credentials.writeKey,
      ...judgement,
      ...(violations === undefined ? {} : { violations }),
    })
  }
  store.addRequest({ ...request, status: 200, messages: judgements.length })
  reply(res, 200, { success: true })
}

/** Sends a small JSON answer; the wire interface's endpoints may be called from a browser too. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
  })
  res.end(text)
}

function isPlanned(type: string | null): boolean {
  return type === 'track' || type === 'identify' || type === 'group'
}

function clientIp(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? ''
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address
}
