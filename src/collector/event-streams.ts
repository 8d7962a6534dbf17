import type { ServerResponse } from 'node:http'
import { publicRecord } from './page/guard'
import type { RecordStore } from './store'
import type { MessageRecord, RequestRecord } from './types'

/** Records a debugger page gets when it connects, newest last: the last ones of each kind. */
const BACKLOG_MESSAGES = 1000
const BACKLOG_REJECTED = 200

// A page that stops reading (a frozen tab, a suspended laptop) must not make the collector hold
// every later record for it: past this many bytes waiting to be sent, its stream is cut. Its
// EventSource reconnects and starts again from the backlog, so it loses nothing still in memory.
const MAX_PENDING_BYTES = 4 * 1024 * 1024

// The backlog a connecting page gets is bounded by bytes too (1,000 messages of 32 KB would be
// 32 MB a connection), and so is the number of live pages: past it, the oldest stream is cut (a
// page left open in a forgotten tab), so the feed holds at most MAX_STREAMS x (backlog + pending).
const MAX_BACKLOG_BYTES = 2 * 1024 * 1024
const MAX_STREAMS = 4

/**
 * The live feed of the debugger page, as server-sent events: `reset` when a page connects (or the
 * records are cleared), then `message` for every message record and `rejected` for every request
 * refused (400, or 404 and 405 for a path or method that is not an endpoint). Every connection starts from the backlog, so a reconnecting page loses nothing
 * still in memory and never shows a record twice.
 */
export class EventStreams {
  readonly #clients = new Set<ServerResponse>()
  readonly #store: RecordStore
  #warning: string | undefined

  constructor(store: RecordStore) {
    this.#store = store
    store.on('message', (record) => this.#broadcast('message', publicRecord(record)))
    store.on('request', (record) => {
      if (record.status >= 400) this.#broadcast('rejected', record)
    })
    store.onClear(() => this.#broadcast('reset', {}))
    store.on('error', (err) => {
      this.#warning = err.message
      this.#broadcast('warning', { message: err.message })
    })
  }

  /** Turns `res` into an event stream: the backlog now, new records as they come. */
  open(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    res.write('retry: 1000\n\n')
    res.write(frame('reset', {}))
    for (const text of backlogFrames(this.#store)) res.write(text)
    if (this.#warning !== undefined) res.write(frame('warning', { message: this.#warning }))
    if (this.#clients.size >= MAX_STREAMS) {
      const oldest = this.#clients.values().next().value as ServerResponse
      this.#clients.delete(oldest)
      oldest.destroy()
    }
    this.#clients.add(res)
    res.on('close', () => this.#clients.delete(res))
  }

  /** Ends every stream (the page's EventSource would reconnect to a running collector). */
  closeAll(): void {
    for (const res of this.#clients) res.end()
    this.#clients.clear()
  }

  #broadcast(event: string, data: unknown): void {
    if (this.#clients.size === 0) return
    const text = frame(event, data)
    for (const res of this.#clients) {
      if (res.writableLength > MAX_PENDING_BYTES) {
        this.#clients.delete(res)
        res.destroy()
      } else res.write(text)
    }
  }
}

// The backlog's frames, oldest first: the newest records that fit in MAX_BACKLOG_BYTES.
function backlogFrames(store: RecordStore): string[] {
  const all = backlog(store)
  const frames: string[] = []
  let bytes = 0
  for (let i = all.length - 1; i >= 0; i--) {
    const text = frame(all[i][0], all[i][1])
    bytes += text.length
    if (bytes > MAX_BACKLOG_BYTES) break
    frames.push(text)
  }
  return frames.reverse()
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

// The last messages and rejected requests in the order they arrived.
function backlog(store: RecordStore): Array<['message', MessageRecord] | ['rejected', RequestRecord]> {
  const messages = store.messages.slice(-BACKLOG_MESSAGES).map((r): ['message', MessageRecord] => ['message', publicRecord(r)])
  const rejected = store.requests
    .filter((r) => r.status >= 400)
    .slice(-BACKLOG_REJECTED)
    .map((r): ['rejected', RequestRecord] => ['rejected', r])
  return [...messages, ...rejected].sort((a, b) => (a[1].receivedAt < b[1].receivedAt ? -1 : a[1].receivedAt > b[1].receivedAt ? 1 : 0))
}
