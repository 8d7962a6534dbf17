// One adapter per client, so that every scenario drives them the same way:
//   create(writeKey, { host, flushAt }) → { track(message), flush(), failed() }
// `flush()` resolves when every event tracked so far has an outcome (acknowledged or failed).
// Each client runs with its own defaults; only `host` and, where a scenario says so, `flushAt`
// are set, plus an error handler where the client would otherwise throw or reject into the void.

import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { eventrailDir } from './snapshot.mjs'

/** The clients, in table order. The first is the baseline every ratio is taken against. */
export const CLIENT_NAMES = ['baseline', 'eventrail', 'analytics-node@6', '@segment/analytics-node@3']

/**
 * What each client is loaded from (scenario 4 imports or requires exactly this in a fresh
 * process): eventrail from the runner's snapshot of the build (bench/lib/snapshot.mjs),
 * `dist/index.js` for import() and `dist/index.cjs` for require(), as its exports map says.
 */
export const CLIENT_MODULES = {
  baseline: fileURLToPath(new URL('./baseline.cjs', import.meta.url)),
  eventrail: join(eventrailDir(), 'dist', 'index.cjs'),
  'analytics-node@6': 'analytics-node',
  '@segment/analytics-node@3': '@segment/analytics-node',
}

/**
 * `eventrail@before` (not in the default list): an earlier build of eventrail, from the directory
 * `EVENTRAIL_BENCH_BEFORE` names (a checkout with its `dist/` built), to compare two builds in the
 * same run: `EVENTRAIL_BENCH_BEFORE=/tmp/before npm run bench -- --clients=baseline,eventrail,eventrail@before --only=1,2`.
 */
export const BEFORE = 'eventrail@before'

function beforeDir() {
  const dir = process.env.EVENTRAIL_BENCH_BEFORE
  if (!dir) throw new Error(`${BEFORE} needs EVENTRAIL_BENCH_BEFORE: a checkout of an earlier commit with dist/ built`)
  return dir
}

/** What `import()` takes for a client: a package name, or a file URL. */
export function importSpecifier(name) {
  if (name === 'eventrail') return pathToFileURL(join(eventrailDir(), 'dist', 'index.js')).href
  if (name === BEFORE) return pathToFileURL(join(beforeDir(), 'dist', 'index.js')).href
  return name === 'baseline' ? pathToFileURL(CLIENT_MODULES.baseline).href : CLIENT_MODULES[name]
}

/** Imports a client and returns its adapter. */
export async function loadClient(name) {
  const mod = await import(importSpecifier(name))
  switch (name) {
    case 'baseline':
      return baselineAdapter(mod.default ?? mod)
    case 'eventrail':
    case BEFORE:
      return eventrailAdapter(mod)
    case 'analytics-node@6':
      return legacyAdapter(mod.default ?? mod)
    case '@segment/analytics-node@3':
      return segmentAdapter(mod)
    default:
      throw new Error(`unknown client ${name}`)
  }
}

function baselineAdapter({ BaselineClient }) {
  return {
    // `shape: 'fill'`: batches that fill by size (480 KB) over 8 sockets, the shape of issue 23's baseline.
    create(writeKey, { host, flushAt, shape }) {
      const fill = shape === 'fill' ? { maxInFlight: 8, maxBodyBytes: 480 * 1024 } : {}
      const client = new BaselineClient(writeKey, { host, ...(flushAt ? { flushAt } : {}), ...fill })
      return {
        track: (message) => client.track(message),
        flush: () => client.flush(),
        failed: () => client.failed + client.refused,
      }
    },
  }
}

function eventrailAdapter({ Analytics }) {
  return {
    // `spoolDir`: the disk spool on that directory (bench scenario 7); default options otherwise.
    create(writeKey, { host, flushAt, spoolDir }) {
      const client = new Analytics(writeKey, {
        host,
        ...(flushAt ? { flushAt } : {}),
        ...(spoolDir ? { spool: { dir: spoolDir } } : {}),
        // Set so that a refused message or a failed request never throws or rejects; counted by stats().
        errorHandler: () => {},
      })
      return {
        track: (message) => client.track(message),
        flush: () => client.flush(),
        failed: () => {
          const { failed, dropped } = client.stats()
          return failed + dropped
        },
        spool: () => client.stats().spool,
      }
    },
  }
}

// analytics-node 6: flush() sends one batch of `flushAt` and does not wait for requests already
// in flight, so completion is counted with a callback per event (one shared function: the client
// stores a callback per event whether one is given or not).
function legacyAdapter(Legacy) {
  return {
    create(writeKey, { host, flushAt }) {
      let tracked = 0
      let done = 0
      let failed = 0
      let waiters = []
      const onDone = (err) => {
        done += 1
        if (err) failed += 1
        if (done === tracked && waiters.length > 0) {
          const ready = waiters
          waiters = []
          for (const resolve of ready) resolve()
        }
      }
      const client = new Legacy(writeKey, { host, ...(flushAt ? { flushAt } : {}), errorHandler: () => {} })
      return {
        track(message) {
          tracked += 1
          try {
            client.track(message, onDone)
          } catch {
            // its validation throws for bad input; none of our events is invalid, but count it
            done += 1
            failed += 1
          }
        },
        flush() {
          while (client.queue.length > 0) client.flush()
          if (done === tracked) return Promise.resolve()
          return new Promise((resolve) => waiters.push(resolve))
        },
        failed: () => failed,
      }
    },
  }
}

// @segment/analytics-node 3: flush() waits until every pending event has an outcome ('drained').
function segmentAdapter({ Analytics }) {
  return {
    create(writeKey, { host, flushAt }) {
      let failed = 0
      const client = new Analytics({ writeKey, host, ...(flushAt ? { flushAt } : {}) })
      client.on('error', () => {
        failed += 1
      })
      return {
        track: (message) => client.track(message),
        flush: () => client.flush(),
        failed: () => failed,
      }
    },
  }
}
