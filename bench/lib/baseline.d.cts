export interface BaselineOptions {
  host: string
  flushAt?: number
  flushInterval?: number
  maxInFlight?: number
  maxBodyBytes?: number
}

export interface BaselineStats {
  queued: number
  inFlight: number
  sent: number
  failed: number
  refused: number
  requests: number
}

export class BaselineClient {
  constructor(writeKey: string, options: BaselineOptions)
  readonly queued: number
  inFlight: number
  sent: number
  failed: number
  refused: number
  requests: number
  timer: ReturnType<typeof setTimeout> | undefined
  pumpScheduled: boolean
  track(message: { userId?: string; anonymousId?: string; event: string; properties?: object; context?: object }): this
  flush(): Promise<void>
  stats(): BaselineStats
}

export function nextBatchCount(bytes: readonly number[], start: number, end: number, maxBodyBytes: number): number
export function buildBody(texts: readonly string[], sentAt: string): string
export function destroyAgent(): void
export const MAX_BATCH_BYTES: number
export const MAX_EVENT_BYTES: number
export const ENVELOPE_BYTES: number
