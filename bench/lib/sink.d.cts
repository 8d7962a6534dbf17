import type { Server } from 'node:http'

export interface SinkOptions {
  /** Largest body accepted, bytes. Default 500 KB (512,000). */
  maxBodyBytes?: number
  /** Largest batch item accepted when `checkEvents` is on, bytes. Default 32 KB (32,768). */
  maxEventBytes?: number
  /** Status for a body over `maxBodyBytes`. Default 400 (the wire spec's). */
  oversizeStatus?: number
  /** Measure every item, refuse a batch holding one over `maxEventBytes`, count them (also in refused bodies). */
  checkEvents?: boolean
  /** Milliseconds each answer is held after its body was read, like a service across a network. Default 0. */
  latencyMs?: number
  /** Share of requests that fail like a struggling service (500, 503, 429, reset, hang). Default 0. */
  faultRate?: number
}

export interface SinkStats {
  requests: number
  accepted: number
  refused: number
  refusedOversize: number
  refusedEventTooLarge: number
  refusedInvalidJson: number
  unauthorized: number
  bytes: number
  largestRequest: number
  events: number
  unique: number
  duplicates: number
  oversizeEventsReceived: number
  byEvent: Record<string, number>
  connections: number
  peakSockets: number
  /** The most requests being handled at once (arrived, not yet answered or closed). */
  peakInFlight: number
  /** Requests whose first messageId came in an earlier request: retries. */
  resentRequests: number
  /** Requests given a fault in fault mode. */
  faults: number
  openSockets: number
  inFlight: number
  held: number
  paused: boolean
}

export interface Sink {
  server: Server
  listen(port?: number): Promise<number>
  stats(): SinkStats
  reset(options?: SinkOptions): SinkStats
  pause(): void
  resume(): void
  close(): Promise<void>
}

export function createSink(options?: SinkOptions): Sink
export const MAX_BODY_BYTES: number
export const MAX_EVENT_BYTES: number
