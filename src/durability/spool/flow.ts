import type { Message } from '../../core/types'
import type { FlushOutcome } from '../../queue/flush-waiters'
import type { QueuedEntry } from '../../queue/queue'
import type { Durability } from '../../queue/durability'
import type { Serialized } from '../../message/serialize'
import type { Callback } from '../../core/types'
import { tellKept } from '../../queue/kept-notice'
import { recordProblem } from './record-check'
import { rejectedFileOf, type RejectedFile } from './rejected'
import { Spool, SPOOL_FULL, type SpoolSettings } from './spool'
import type { SpoolDeps, SpoolHost, SpoolStats } from './types'

// A PoisonMessageError, told by its field (the spool gets no copy of that class).
function isPoison(error: Error | undefined): boolean {
  return error !== undefined && (error as Error & { readonly isPoison?: unknown }).isPoison === true
}

/** Messages read back from the disk at a time. */
const PAGE_RECORDS = 20_000

/**
 * A spool client's message flow: each accepted message's record is written before the call
 * returns, and the message is queued in memory unless memory is full or the service is down (it
 * then waits on the disk only, and is read back later, in order); records are acked once their
 * message has its outcome; `flush()` also sends what waits on the disk, and settles, saying how
 * many wait, once the service is down and they are synced.
 */
export class SpoolFlow implements Durability {
  readonly #host: SpoolHost
  readonly #deps: SpoolDeps
  readonly #spool: Spool
  readonly #settings: SpoolSettings
  readonly #rejected: RejectedFile | undefined
  readonly #callbacks = new Map<number, Callback>()
  readonly #replayed = new Set<number>()
  #replayedTotal = 0
  #invalid = 0
  /** The order number of the last message read back from the disk. */
  #lastReadSeq = 0
  /** Messages in memory without a record (the disk refused it): an exit now would lose them. */
  unsaved = 0

  constructor(settings: SpoolSettings, host: SpoolHost, deps: SpoolDeps) {
    this.#settings = settings
    this.#host = host
    this.#deps = deps
    this.#rejected = rejectedFileOf(settings)
    this.#spool = new Spool(settings, {
      // After the call: a disk that refuses the constructor's writes is heard by listeners added after it.
      unavailable: (code, message) => {
        const error = new deps.SpoolError(code, `spool: ${message}; messages are kept in memory only until the disk takes writes again`)
        void Promise.resolve().then(() => deps.report(error))
      },
      syncFailed: (message) => {
        const error = new deps.SpoolError('ESYNC', `spool: ${message}`)
        void Promise.resolve().then(() => deps.report(error))
      },
      found: (count, torn) => {
        this.pageIn()
        // After the constructor: listeners added right after it hear of the replay.
        void Promise.resolve().then(() => deps.replay(count, torn))
      },
    })
    // What a gone client left is sent from now on, and a flush right after this waits for it.
    this.#spool.takeOver()
  }

  /** Writes a message's record, then queues it (in memory, or on the disk only); or says why not. */
  enqueue(serialized: Serialized, isAlias: boolean, callback: Callback | undefined, isFull: boolean): Error | undefined {
    const host = this.#host
    const diskOnly = isFull || host.isDown() || this.#spool.isOverflowing
    const rec = this.#spool.append(serialized.head, serialized.json, isAlias, diskOnly)
    if (rec === SPOOL_FULL) {
      const { dir, maxBytes } = this.#settings
      return new this.#deps.QueueFullError(
        `the spool is full (${this.#spool.bytes} bytes in ${dir}; spool.maxBytes ${maxBytes}): the message was not queued`,
      )
    }
    if (rec >= 0 && diskOnly) {
      if (callback === undefined) return undefined
      this.#callbacks.set(rec, callback)
      // A caller of deliver.* waits no longer: the service is known down, the message is on disk.
      if (host.isDown())
        tellKept(
          callback,
          new this.#deps.ServiceUnavailableError(
            'the service is down (the outage breaker is open): the message is kept in the spool and will be delivered once it is back',
          ),
        )
      return undefined
    }
    if (rec < 0) {
      // The disk refuses writes: memory only, as without a spool.
      if (isFull)
        return new this.#deps.QueueFullError(
          `the queue is full (maxQueueSize ${host.maxQueueSize}, maxQueueBytes ${host.maxQueueBytes}): the message was not queued`,
        )
      this.unsaved += 1
    }
    const { json, bytes, head } = serialized
    host.push({ seq: host.seq() + 1, at: Date.now(), json, bytes, head, isAlias, callback, rec })
    return undefined
  }

  /** Reads back what waits on the disk only, as far as memory has room (and `limit`), and queues it, due. */
  pageIn(limit = PAGE_RECORDS): void {
    const host = this.#host
    if (this.#spool.onDiskOnly === 0 || host.gaveUp()) return
    const pending = host.pending()
    const room = Math.min(host.maxQueueSize - pending.count, limit)
    const roomBytes = host.maxQueueBytes - pending.bytes
    if (room <= 0 || roomBytes <= 0) return
    const records = this.#spool.read(room, roomBytes)
    if (records.length === 0) return
    const now = Date.now()
    let seq = host.seq()
    const entries: QueuedEntry[] = []
    const refused: number[] = []
    let problem: string | undefined
    for (const record of records) {
      const callback = this.#callbacks.get(record.ref)
      if (callback !== undefined) this.#callbacks.delete(record.ref)
      const wrong = recordProblem(record.text, record.isAlias, record.bytes)
      if (wrong !== undefined) {
        // Never sent, never read again: it has its outcome here, and its neighbours go on.
        problem ??= wrong
        refused.push(record.ref)
        if (callback !== undefined) this.#settleQuietly(callback, this.#badRecord(1, wrong))
        continue
      }
      if (record.replayed) this.#replayed.add(record.ref)
      entries.push({
        seq: ++seq,
        at: now,
        json: record.text,
        bytes: record.bytes,
        head: undefined,
        isAlias: record.isAlias,
        callback,
        rec: record.ref,
      })
    }
    if (problem !== undefined) {
      this.#invalid += refused.length
      this.#spool.ack(refused)
      const error = this.#badRecord(refused.length, problem)
      void Promise.resolve().then(() => this.#deps.report(error))
    }
    if (entries.length === 0) return
    this.#lastReadSeq = seq
    host.pushRead(entries)
  }

  #badRecord(count: number, problem: string): Error {
    return new this.#deps.SpoolError(
      'EBADRECORD',
      `spool: ${count === 1 ? 'a record' : `${count} records`} read back from ${this.#settings.dir} ${count === 1 ? 'is' : 'are'} not a message (the first ${problem}): skipped, never sent`,
    )
  }

  #settleQuietly(callback: Callback, error: Error): void {
    try {
      callback(error, undefined)
    } catch (err) {
      this.#deps.report(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /**
   * Sends what is queued and what waits on the disk only, round after round, until nothing waits
   * or the service is down; then, once the files are synced, says how many wait.
   */
  async flush(wantBatch: boolean): Promise<FlushOutcome> {
    const host = this.#host
    let error: Error | undefined
    const batch: Message[] | undefined = wantBatch ? [] : undefined
    // The messages queued before the call, and those read back from the disk until none waits
    // there (also those read back as requests end, while this waits: they are newer in memory).
    let through = host.seq()
    let held = false
    // While the service is down a round still waits for one probe (an awaited flush has one within
    // about a second): a service that is back takes the messages now instead of at the next flush.
    while (!host.gaveUp()) {
      const read = this.#lastReadSeq
      this.pageIn()
      // Memory is full of later messages: wait for them to make room.
      if (this.#lastReadSeq === read && this.#spool.onDiskOnly > 0) through = host.seq()
      through = Math.max(through, this.#lastReadSeq)
      const outcome = await host.flushQueued(wantBatch, through)
      error ??= outcome.error
      if (batch !== undefined && outcome.batch !== undefined) batch.push(...outcome.batch)
      held = outcome.held === true
      if (held || (this.#spool.onDiskOnly === 0 && this.#lastReadSeq <= through)) break
    }
    await this.#spool.sync()
    return { error, batch, waiting: held ? host.pending().count + this.#spool.onDiskOnly : 0 }
  }

  /**
   * Whether a request that failed with `error` waits for the service instead (sent again): it is
   * down (the breaker), did not answer, answered 5xx, 408 or 429, or the retries ran out on those.
   * Not a message that kept failing alone while the service accepted others (a PoisonMessageError):
   * that is the message's own outcome, and sending it again would never end. Its `entries` kept on
   * disk then tell a caller of `deliver.*` so, with `error` (see `queue/kept-notice.ts`): it settles
   * within the retry budget, as without a spool.
   */
  waitsAgain(error: Error, entries: readonly QueuedEntry[] = []): boolean {
    if (!this.#waitsAgain(error)) return false
    for (const entry of entries) if (entry.callback !== undefined && (entry.rec ?? -1) >= 0) tellKept(entry.callback, error)
    return true
  }

  /** The service is down (the breaker opened): entries waiting in memory that are on disk tell a caller of deliver.* so. */
  keepWaiting(entries: readonly QueuedEntry[], error: Error): void {
    for (const entry of entries) if (entry.callback !== undefined && (entry.rec ?? -1) >= 0) tellKept(entry.callback, error)
  }

  #waitsAgain(error: Error): boolean {
    if (this.#host.gaveUp() || isPoison(error)) return false
    if (error instanceof this.#deps.ServiceUnavailableError) return true
    const status = this.#statusOf(error)
    if (status === null) return false
    return status === undefined || status >= 500 || status === 408 || status === 429
  }

  // A DeliveryError's status (undefined: it got no answer); null for any other error.
  #statusOf(error: Error): number | undefined | null {
    return error instanceof this.#deps.DeliveryError ? (error as Error & { readonly status: number | undefined }).status : null
  }

  /**
   * Entries have their outcome: their records are acked when it is final (delivered, or the
   * service refused the message itself: 400, 413, 422, or it kept failing alone while others got
   * through); other refusals (a wrong write key, a redirect) stay on disk for a client set up
   * right: kept, they do not pin their segment (it is compacted, see `SegmentStore.keep`). Returns
   * how many were replayed.
   */
  done(entries: readonly QueuedEntry[], error: Error | undefined): number {
    const status = error === undefined ? null : this.#statusOf(error)
    const ack = error === undefined || status === 400 || status === 413 || status === 422 || isPoison(error)
    const refs: number[] = []
    const keptBytes: number[] = []
    let replayed = 0
    for (const entry of entries) {
      const rec = entry.rec ?? -1
      if (rec < 0) {
        this.unsaved -= 1
        continue
      }
      refs.push(rec)
      // A record's bytes on disk: its header, its kind, the message.
      if (!ack) keptBytes.push(entry.bytes + 9)
      if (this.#replayed.delete(rec)) replayed += 1
    }
    this.#replayedTotal += replayed
    // Refused for good: a copy goes to the dead-letter file, when kept, before the record is acked
    // (only in a directory the spool trusts and uses: it has a part there).
    if (ack && error !== undefined && this.#spool.part !== undefined) this.#rejected?.keep(entries, error)
    if (ack) this.#spool.ack(refs)
    else this.#spool.keep(refs, keptBytes)
    return replayed
  }

  /**
   * The client closed (`outcome` is its last flush's). Closed while the service is down, the
   * messages stay in the spool for the next client on its directory, and end here with an error
   * that says so (their records are not acked).
   */
  close(outcome: FlushOutcome): void {
    const waiting = outcome.waiting ?? 0
    const left = waiting + this.#callbacks.size
    const error =
      left > 0
        ? new this.#deps.ServiceUnavailableError(
            `the client closed while the service was down: ${Math.max(waiting, this.#spool.onDiskOnly)} messages wait in the spool (${this.#settings.dir}) for the next client on it`,
          )
        : undefined
    if (error !== undefined && waiting > 0) this.#host.endQueued(error)
    // Messages kept on the disk only have their callbacks here: they end with the same outcome.
    if (error !== undefined && this.#callbacks.size > 0) {
      const parked = [...this.#callbacks.values()]
      this.#callbacks.clear()
      this.#host.endParked(parked, error)
    }
    this.#spool.close()
  }

  get stats(): SpoolStats {
    const spool = this.#spool
    return {
      part: spool.part,
      bytes: spool.bytes,
      onDiskOnly: spool.onDiskOnly,
      replayed: this.#replayedTotal,
      torn: spool.torn,
      invalid: this.#invalid,
      available: spool.isAvailable,
    }
  }
}
