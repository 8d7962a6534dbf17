let n = 0

/** A valid track message, a little different each call. */
export function aTrack(extra: Record<string, unknown> = {}) {
  n += 1
  return { userId: `user-${n}`, event: 'Item Purchased', properties: { n, price: 9.99 }, ...extra }
}

/** A track message whose serialized form is about `bytes` long. */
export function aTrackOfSize(bytes: number, extra: Record<string, unknown> = {}) {
  const base = aTrack(extra)
  return { ...base, properties: { ...base.properties, padding: 'x'.repeat(Math.max(0, bytes - 260)) } }
}

/** Waits until the microtask queue and pending I/O callbacks have run. */
export function settleIO(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
