/** Largest serialized message, in UTF-8 bytes (wire spec: 32 KB per message, KB = 1024 bytes). */
export const MAX_MESSAGE_BYTES = 32 * 1024

/** Largest request body sent to `/v1/batch`, in UTF-8 bytes (wire spec: 500 KB per batch request). */
export const MAX_BATCH_BYTES = 500 * 1024

/**
 * Longest `Retry-After` the client honours; a longer one is cut to this. Half the default
 * `maxRetryTime` (60 s), so that a capped wait and the attempt after it fit in the default budget.
 */
export const MAX_RETRY_AFTER_MS = 30_000

/** setTimeout's own ceiling: a longer delay would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** The six message types of the wire interface. */
export const MESSAGE_TYPES = Object.freeze(['identify', 'track', 'page', 'screen', 'group', 'alias'] as const)
