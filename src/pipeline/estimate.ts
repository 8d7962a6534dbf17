import { MAX_MESSAGE_BYTES } from '../core/limits'
import { utf8ByteLength } from '../platform/runtime'

/**
 * About how many bytes a message waiting in an async plugin will take in the queue: its JSON as
 * it stands when the plugin took it (the plugin may still change it; its real size is counted
 * when it is queued). A message that cannot be serialized now counts as the largest a message may
 * be: it holds memory all the same. Never throws.
 */
export function estimateBytes(message: object): number {
  try {
    const json = JSON.stringify(message) as string | undefined
    return json === undefined ? MAX_MESSAGE_BYTES : utf8ByteLength(json)
  } catch {
    return MAX_MESSAGE_BYTES
  }
}
