import type { ImportClient } from '../core/import-source'
import { QUEUE_PARSED_LINE } from '../core/internal'
import type { ParsedLine } from '../message/prepare'
import type { Callback, MessageType } from '../core/types'
import type { MessagePipeline } from '../pipeline/pipeline'

/**
 * The client as an import sees it when the client has a pipeline: each message goes through the
 * pipeline marked as imported, with or without the plugins. A line goes there as its parsed value
 * (it cannot be sent as written: its context or the plugins may change it).
 */
export function importThroughPipeline(pipeline: MessagePipeline, usePlugins: boolean, flush: () => Promise<void>): ImportClient {
  const through =
    (type: MessageType) =>
    (message: unknown, callback: Callback): void =>
      pipeline.enqueue(type, message, callback, 'import', usePlugins)
  return {
    identify: through('identify'),
    track: through('track'),
    page: through('page'),
    screen: through('screen'),
    group: through('group'),
    alias: through('alias'),
    flush,
    [QUEUE_PARSED_LINE]: (type: MessageType, line: ParsedLine, callback: Callback) =>
      pipeline.enqueue(type, line.value, callback, 'import', usePlugins),
  } as ImportClient
}
