/**
 * A seeded pseudo-random source (mulberry32): the same seed gives the same sequence of
 * operations, so that a failing run can be replayed with `EVENTRAIL_MODEL_SEED=<n>`.
 */
export interface Rng {
  /** A number in [0, 1). */
  next(): number
  /** An integer in [min, max]. */
  int(min: number, max: number): number
  /** true with probability `p`. */
  chance(p: number): boolean
  /** One of `items`, by weight: `[[item, weight], …]`. */
  pick<T>(items: readonly (readonly [T, number])[]): T
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick(items) {
      const total = items.reduce((sum, [, weight]) => sum + weight, 0)
      let at = next() * total
      for (const [item, weight] of items) {
        at -= weight
        if (at < 0) return item
      }
      return items[items.length - 1][0]
    },
  }
}
