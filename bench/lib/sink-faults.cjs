'use strict'
// Faults for the sink's fault mode: a share of requests fails like a struggling service, chosen by
// a seeded generator from the request's number, so every client meets the same faults in the same
// order. Of the failing requests: 30 % answer 500, 25 % 503, 15 % 429 with `Retry-After: 1`,
// 20 % reset the connection before the body is read, 10 % never answer (the client times out).

/** A seeded PRNG (mulberry32). */
function seeded(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * `(index) => fault` for a share `rate` of failing requests: `{ kind: 'ok' }`, `{ kind: 'status',
 * status, headers }`, `{ kind: 'reset' }` or `{ kind: 'hang' }`.
 */
function faultPlan(rate, seed = 7) {
  const random = seeded(seed)
  const plan = []
  return (index) => {
    while (plan.length <= index) {
      const r = random()
      if (r >= rate) {
        plan.push({ kind: 'ok' })
        continue
      }
      const share = r / rate
      plan.push(
        share < 0.3
          ? { kind: 'status', status: 500 }
          : share < 0.55
            ? { kind: 'status', status: 503 }
            : share < 0.7
              ? { kind: 'status', status: 429, headers: { 'Retry-After': '1' } }
              : share < 0.9
                ? { kind: 'reset' }
                : { kind: 'hang' },
      )
    }
    return plan[index]
  }
}

module.exports = { faultPlan }
