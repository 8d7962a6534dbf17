import { QueueFullError } from '../core/errors'
import type { ResolvedOptions } from '../config/options'

type Bounds = Pick<ResolvedOptions, 'maxQueueSize' | 'maxQueueBytes'>

/** Whether `count` messages of `bytes` in all stay within `maxQueueSize` and `maxQueueBytes`. */
export function hasRoom(bounds: Bounds, count: number, bytes: number): boolean {
  return count < bounds.maxQueueSize && bytes <= bounds.maxQueueBytes
}

/** The refusal of a message that found the queue full (`count` messages of `bytes` waiting). */
export function queueFull(bounds: Bounds, count: number, bytes: number): QueueFullError {
  const { maxQueueSize, maxQueueBytes } = bounds
  return new QueueFullError(
    `the queue is full (${count} messages, ${bytes} bytes; maxQueueSize ${maxQueueSize}, maxQueueBytes ${maxQueueBytes}): the message was not queued`,
  )
}

/**
 * Whether a new message has room while `held` messages of about `heldBytes` wait outside the
 * queue, in async plugins: they count toward `maxQueueSize` and `maxQueueBytes` with the queued
 * ones (`pending`, `pendingBytes`). `bytes`: the message's estimated size once it waits in a plugin
 * itself; `undefined` before its plugins ran. With a spool, queued messages (and a message that does
 * not wait) can go to disk, so only a message that waits is refused there, and only the held ones
 * count. The QueueFullError the message gets, else undefined.
 */
export function roomBeside(
  bounds: Bounds,
  spooled: boolean,
  pending: number,
  pendingBytes: number,
  held: number,
  heldBytes: number,
  bytes: number | undefined,
): QueueFullError | undefined {
  if (spooled && bytes === undefined) return undefined
  const count = spooled ? held : pending + held
  const queuedBytes = spooled ? heldBytes : pendingBytes + heldBytes
  if (count < bounds.maxQueueSize && queuedBytes + (bytes ?? 0) <= bounds.maxQueueBytes) return undefined
  const { maxQueueSize, maxQueueBytes } = bounds
  return new QueueFullError(
    `the queue is full (${count} messages, about ${queuedBytes} bytes, ${held} of them in plugins; maxQueueSize ${maxQueueSize}, maxQueueBytes ${maxQueueBytes}): the message was not queued`,
  )
}
