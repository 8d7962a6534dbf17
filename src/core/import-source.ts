import type { Callback, MessageType } from './types'

/** The part of a client that an import uses: the public message methods with a callback, and `flush()`. */
export type ImportClient = { [K in MessageType]: (message: never, callback: Callback) => unknown } & {
  /** Sends what is queued; resolves when it has an outcome. */
  flush(): Promise<void>
}

/** One item of a source at its position: a line (bytes or text), a message object, or `null` for a blank line. */
export interface SourceItem {
  readonly position: number
  readonly source: Uint8Array | string | Record<string, unknown> | null
  /** Bytes of the line (0 for an object): counted against `maxPendingBytes`. */
  readonly bytes: number
  /** UTF-8 bytes of a line's text (`source`), when the reader knows them. */
  readonly textBytes?: number
  /** Bytes of the input the item covers, when not `bytes` (a line too long to hold). */
  readonly span?: number
  /** Why the item is refused before it is read (a line too long to hold). */
  readonly error?: Error
}
