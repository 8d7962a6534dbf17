import { fatesOf, PLUGIN_TIMEOUT_MS, type Fate, type ModelConfig } from './configs'
import type { Rng } from './rng'

/** How the fault server answers while a mode lasts (see runner.ts, `answerFor`). */
export type ServerMode =
  | 'ok'
  /** Answers 200 after 20-150 ms. */
  | 'slow'
  /** Each request at random: 200, 500, 429 with Retry-After, 400, a reset, a slow 200. */
  | 'flaky'
  /** Outages: every request gets 503, hangs, or the port refuses connections. */
  | 'down503'
  | 'downHang'
  | 'downRefused'
  /** Every request is refused with 400 (a client error: no retry). */
  | 'fail400'
  /** Every request gets 429 with `Retry-After: 0`. */
  | 'fail429'

/**
 * What a run can be told to leave out (known-bugs.ts): a server mode, or (`closeTimeoutBelowPlugin`)
 * a closeAndFlush timeout shorter than the slowest async plugin.
 */
export type Avoidable = ServerMode | 'closeTimeoutBelowPlugin'

/** One step of a sequence. */
export type Op =
  /** A message call: with a callback, or awaited through `deliver.*`. */
  | { kind: 'call'; method: 'track' | 'identify' | 'alias'; via: 'callback' | 'deliver'; fate: Fate }
  /** An invalid call with neither a callback nor an errorHandler: it must throw, and is not accepted. */
  | { kind: 'throwingCall' }
  /** `flush()` or `flush(callback)`; awaited before the next op or not. */
  | { kind: 'flush'; callback: boolean; awaited: boolean }
  /** `closeAndFlush()`, with `{ timeout }` or not; later calls must get a ClosedError. */
  | { kind: 'close'; timeoutMs: number | undefined; awaited: boolean }
  /** The server answers in another way from now on. */
  | { kind: 'server'; mode: ServerMode }
  /** Lets time pass. */
  | { kind: 'wait'; ms: number }

/** A generated run: its options' randomness comes from the same seed. */
export interface Sequence {
  readonly errorHandler: boolean
  readonly ops: readonly Op[]
}

const SERVER_MODES: readonly (readonly [ServerMode, number])[] = [
  ['ok', 4],
  ['slow', 2],
  ['flaky', 3],
  ['down503', 1],
  ['downHang', 1],
  ['downRefused', 1],
  ['fail400', 0.5],
  ['fail429', 0.5],
]

const OUTAGES: ReadonlySet<ServerMode> = new Set(['down503', 'downHang', 'downRefused'])

/**
 * A random sequence of about `length` operations for `config`, in phases: each phase sets how the
 * server answers, then makes calls, flushes and waits; an outage phase waits long enough (up to
 * 1.5 s) for the outage breaker to open, so that calls are also made while it is open. The client
 * may be closed before the end (the ops after it test the refusal of a closed client); the runner
 * closes it at the end anyway. What is in `avoid` is left out (see known-bugs.ts).
 */
export function generateSequence(config: ModelConfig, rng: Rng, length: number, avoid: ReadonlySet<Avoidable> = new Set()): Sequence {
  const errorHandler = rng.chance(0.5)
  const fates = fatesOf(config).map((fate) => [fate, fate === 'ok' ? 6 : 1] as const)
  const ops: Op[] = []
  let closed = false
  while (ops.length < length) {
    const mode = rng.pick(SERVER_MODES.filter(([m]) => !avoid.has(m)))
    ops.push({ kind: 'server', mode })
    const phase = rng.int(3, 14)
    const longWaitAt = OUTAGES.has(mode) && rng.chance(0.7) ? rng.int(0, phase - 1) : -1
    for (let i = 0; i < phase && ops.length < length; i++) {
      if (i === longWaitAt) ops.push({ kind: 'wait', ms: rng.int(300, 1_500) })
      const op = randomOp(rng, fates, {
        errorHandler,
        closed,
        late: ops.length > length / 2,
        longClose: avoid.has('closeTimeoutBelowPlugin'),
      })
      if (op.kind === 'close') closed = true
      ops.push(op)
    }
  }
  return { errorHandler, ops }
}

function randomOp(
  rng: Rng,
  fates: readonly (readonly [Fate, number])[],
  at: { errorHandler: boolean; closed: boolean; late: boolean; longClose: boolean },
): Op {
  const kind = rng.pick<Op['kind']>([
    ['call', 12],
    ['throwingCall', at.errorHandler || at.closed ? 0 : 0.3],
    ['flush', 2],
    ['close', at.closed || !at.late ? 0 : 0.2],
    ['wait', 2],
  ])
  if (kind === 'call') {
    const method = rng.pick([
      ['track', 6],
      ['identify', 2],
      ['alias', 1],
    ] as const)
    // A plan checks track and identify only; alias has no fields a plan can break.
    let fate = rng.pick(fates)
    if (method === 'alias' && fate === 'planViolation') fate = 'ok'
    return { kind, method, via: rng.chance(0.3) ? 'deliver' : 'callback', fate }
  }
  if (kind === 'throwingCall') return { kind }
  if (kind === 'flush') return { kind, callback: rng.chance(0.4), awaited: rng.chance(0.5) }
  if (kind === 'close') {
    const timeoutMs = at.longClose ? rng.int(PLUGIN_TIMEOUT_MS * 2 + 100, 900) : rng.int(0, 400)
    return { kind, timeoutMs: rng.chance(0.5) ? timeoutMs : undefined, awaited: rng.chance(0.7) }
  }
  return {
    kind: 'wait',
    ms: rng.pick([
      [0, 2],
      [5, 2],
      [30, 2],
      [150, 1],
      [400, 0.5],
    ] as const),
  }
}
