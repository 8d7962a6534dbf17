import { Emitter, type Listener } from '../core/emitter'
import type { JsonLinesWriter } from './jsonl'
import { publicRecord } from './page/guard'
import type { CollectorEvents, MessageRecord, RequestRecord } from './types'

/** A record before the store numbers it. */
export type NewMessageRecord = Omit<MessageRecord, 'id'>

/**
 * The collector's memory: message and request records, oldest first, each list bounded (past
 * its maximum the oldest eighth goes at once), every message also appended to the JSON-lines file when there is one, and
 * every new record announced to listeners.
 */
export class RecordStore {
  /** Message records, oldest first. The same array for the store's life: callers see it grow. */
  readonly messages: MessageRecord[] = []
  /** Request records, oldest first. */
  readonly requests: RequestRecord[] = []
  readonly #maxMessages: number
  readonly #maxRequests: number
  readonly #writer: JsonLinesWriter | undefined
  readonly #events = new Emitter<CollectorEvents>()
  readonly #clearListeners = new Set<() => void>()
  readonly #maxMessageBytes: number
  // JSON bytes of each kept message, in the same order as `messages`, and their total.
  readonly #messageBytes: number[] = []
  #totalMessageBytes = 0
  #lastMessageId = 0
  #accepted = 0
  #lastRequestId = 0

  constructor(maxMessages: number, maxRequests: number, writer: JsonLinesWriter | undefined, maxMessageBytes = Infinity) {
    this.#maxMessages = maxMessages
    this.#maxRequests = maxRequests
    this.#writer = writer
    this.#maxMessageBytes = maxMessageBytes
    // A listener's bug must not cost the sender its 200 or the other listeners their record; it is
    // told to the `error` listeners (a throw of theirs has nobody left to tell).
    this.#events.listenerThrowSink = {
      listenerThrew: (err, event) => {
        if (event !== 'error') this.#events.emit('error', new Error(`a collector '${String(event)}' listener threw: ${String(err)}`, { cause: err }))
      },
    }
  }

  /** Messages judged since the collector started (cleared records included), and how many were accepted. */
  get counts(): { readonly messages: number; readonly accepted: number } {
    return { messages: this.#lastMessageId, accepted: this.#accepted }
  }

  /** The `out` file's records: queued for writing, and left out (after a write failure). */
  get out(): { readonly written: number; readonly lost: number } | undefined {
    return this.#writer && { written: this.#writer.written, lost: this.#writer.lost }
  }

  /** Resolves once the `out` file has room for more records (at once without a file). */
  room(): Promise<void> {
    return this.#writer?.room() ?? Promise.resolve()
  }

  /** A number for the next request, so that its messages can point to it before it is answered. */
  nextRequestId(): number {
    return ++this.#lastRequestId
  }

  /** Keeps a message record, writes it to the file and announces it. */
  addMessage(fields: NewMessageRecord): MessageRecord {
    const record: MessageRecord = Object.freeze({ id: ++this.#lastMessageId, ...fields })
    if (record.verdict === 'accepted') this.#accepted += 1
    const bytes = (JSON.stringify(record.message) ?? '').length
    this.messages.push(record)
    this.#messageBytes.push(bytes)
    this.#totalMessageBytes += bytes
    this.#trimMessages()
    this.#writer?.write(publicRecord(record))
    this.#emit('message', record)
    return record
  }

  // Past either bound, the oldest eighth of what the bound allows goes at once (see `push`).
  #trimMessages(): void {
    const overCount = this.messages.length > this.#maxMessages
    if (!overCount && this.#totalMessageBytes <= this.#maxMessageBytes) return
    let cut = overCount ? this.messages.length - (this.#maxMessages - Math.floor(this.#maxMessages / 8)) : 0
    const byteTarget = this.#maxMessageBytes - Math.floor(this.#maxMessageBytes / 8)
    let removed = 0
    for (let i = 0; i < cut; i++) removed += this.#messageBytes[i]
    while (cut < this.messages.length - 1 && this.#totalMessageBytes - removed > byteTarget) removed += this.#messageBytes[cut++]
    this.messages.splice(0, cut)
    this.#messageBytes.splice(0, cut)
    this.#totalMessageBytes -= removed
  }

  /** Keeps a request record and announces it. */
  addRequest(record: RequestRecord): void {
    Object.freeze(record)
    push(this.requests, record, this.#maxRequests)
    this.#emit('request', record)
  }

  /** Announces a failure of the collector's own (the `out` file) to `error` listeners. */
  addError(err: Error): void {
    this.#emit('error', err)
  }

  /** Forgets every record held in memory (numbering goes on) and tells `onClear` listeners. */
  clear(): void {
    this.messages.length = 0
    this.#messageBytes.length = 0
    this.#totalMessageBytes = 0
    this.requests.length = 0
    for (const listener of this.#clearListeners) listener()
  }

  on<K extends keyof CollectorEvents>(event: K, listener: Listener<CollectorEvents, K>): void {
    this.#events.on(event, listener)
  }

  off<K extends keyof CollectorEvents>(event: K, listener: Listener<CollectorEvents, K>): void {
    this.#events.off(event, listener)
  }

  /** Calls `listener` whenever the records are cleared. */
  onClear(listener: () => void): void {
    this.#clearListeners.add(listener)
  }

  #emit<K extends keyof CollectorEvents>(event: K, record: CollectorEvents[K]): void {
    this.#events.emit(event, record)
  }
}

// Past `max`, the oldest go in one cut down to 7/8 of `max`: a cut moves the whole list, so
// cutting one record each time cost O(max) per record (a 500 KB batch of 255,000 tiny items
// blocked every other request ~9 s); cutting an eighth at a time costs O(1) per record, amortized.
function push<T>(list: T[], item: T, max: number): void {
  list.push(item)
  if (list.length > max) list.splice(0, list.length - (max - Math.floor(max / 8)))
}
