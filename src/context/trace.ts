import type { AmbientFrame } from '../client/ambient'
import type { Snapshot } from '../message/snapshot'
import type { MessageType } from '../core/types'

/**
 * The part of `@opentelemetry/api` that trace stamping reads: pass the module itself
 * (`import * as otel from '@opentelemetry/api'`). eventrail imports nothing of it.
 */
export interface TraceApi {
  readonly trace: {
    /** The span active in the current OpenTelemetry context, if any. */
    getActiveSpan(): TraceSpan | undefined
  }
}

/** The part of an OpenTelemetry `Span` that trace stamping reads. */
export interface TraceSpan {
  /** The span's ids. */
  spanContext(): { readonly traceId: string; readonly spanId: string }
}

const INVALID = /^0+$/

/** The active span's ids, when there is a valid one. */
export function activeTrace(api: TraceApi): { traceId: string; spanId: string } | undefined {
  const span = api.trace.getActiveSpan()
  if (span === undefined) return undefined
  const { traceId, spanId } = span.spanContext()
  if (typeof traceId !== 'string' || typeof spanId !== 'string' || INVALID.test(traceId) || INVALID.test(spanId)) return undefined
  return { traceId, spanId }
}

/**
 * A frame that stamps `context.trace = { traceId, spanId }` from the span active at the call, over
 * the request's frame when there is one (the message's own `context.trace` wins).
 */
export class TraceFrame implements AmbientFrame {
  readonly #inner: AmbientFrame | undefined
  readonly #api: TraceApi

  constructor(inner: AmbientFrame | undefined, api: TraceApi) {
    this.#inner = inner
    this.#api = api
  }

  apply(type: MessageType, snapshot: Snapshot, fresh: boolean): Error | undefined {
    const refused = this.#inner?.apply(type, snapshot, fresh)
    if (refused !== undefined) return refused
    const ids = activeTrace(this.#api)
    if (ids === undefined) return undefined
    const own = snapshot.context
    const context = typeof own === 'object' && own !== null ? (own as Record<string, unknown>) : undefined
    if (context !== undefined && context.trace !== undefined) return undefined
    snapshot.context = { ...context, trace: ids }
    return undefined
  }
}
