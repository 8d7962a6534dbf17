import type { ImportOptions, ImportProgress } from './types'
import { Watermark } from './watermark'

/** The counts of an import run, and the watermark: what its progress reports. */
export class Tally {
  /** Items read from the source, blank lines included. */
  read = 0
  sent = 0
  refused = 0
  failed = 0
  /** Items with nothing to send: blank lines, records left out by a filter. */
  skipped = 0
  /** Messages handed to the client that have no outcome yet, and their bytes. */
  pending = 0
  pendingBytes = 0
  /** Bytes of the lines read. */
  bytes = 0
  readonly watermark: Watermark
  readonly startMs = Date.now()

  /**
   * @param before - the position before the first item (a checkpoint's line, or 0).
   * @param watermark - one to keep instead of a new one (it starts at `before`).
   */
  constructor(before: number, watermark?: Watermark) {
    this.watermark = watermark ?? new Watermark(before)
  }

  /** The counts so far, as `onProgress` gets them. */
  progress(): ImportProgress {
    const elapsedMs = Date.now() - this.startMs
    const done = this.sent + this.refused + this.failed
    return {
      read: this.read,
      sent: this.sent,
      refused: this.refused,
      failed: this.failed,
      skipped: this.skipped,
      pending: this.pending,
      bytes: this.bytes,
      watermark: this.watermark.value,
      elapsedMs,
      rate: elapsedMs > 0 ? (done * 1000) / elapsedMs : 0,
    }
  }
}

/** Calls one of the caller's listeners (`onProgress`, `onIssue`): what it throws never stops the import. */
export function callListener<K extends 'onProgress' | 'onIssue'>(
  hooks: ImportOptions,
  name: K,
  value: Parameters<NonNullable<ImportOptions[K]>>[0],
): void {
  const listener = hooks[name] as ((value: unknown) => void) | undefined
  if (listener === undefined) return
  try {
    listener(value)
  } catch {
    // The caller's progress display or issue log must not stop the import.
  }
}
