import type { Fault } from '../faults/fault-server'
import type { ServerMode } from './generator'
import type { Rng } from './rng'

/** What the server does with one request while `mode` lasts. */
export function answerFor(mode: ServerMode, rng: Rng): Fault {
  switch (mode) {
    case 'ok':
    case 'downRefused': // not listening: no request arrives
      return { kind: 'status', status: 200 }
    case 'slow':
      return { kind: 'delay', ms: rng.int(20, 150) }
    case 'down503':
      return { kind: 'status', status: 503 }
    case 'downHang':
      return { kind: 'hang' }
    case 'fail400':
      return { kind: 'status', status: 400 }
    case 'fail429':
      return { kind: 'status', status: 429, headers: { 'retry-after': '0' } }
    case 'flaky':
      return rng.pick<Fault>([
        [{ kind: 'status', status: 200 }, 5],
        [{ kind: 'status', status: 500 }, 2],
        [{ kind: 'status', status: 429, headers: { 'retry-after': rng.chance(0.8) ? '0' : '1' } }, 1],
        [{ kind: 'status', status: 400 }, 0.5],
        [{ kind: 'reset' }, 1],
        [{ kind: 'delay', ms: rng.int(10, 300) }, 1],
      ])
  }
}
