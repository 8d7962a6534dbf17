// The second process on a spool directory, forked by bench/outage-kill.mjs and bench/spool.mjs:
// eventrail (the build) with the spool on SPOOL_REPLAYER's `spoolDir`, default options otherwise,
// against `host`. It constructs the client (which takes over the parts of the killed process),
// calls closeAndFlush() at once and reports, over IPC, the times (epoch ms, to compare with the
// sink's clock), its CPU, what closeAndFlush() resolved and stats().spool. With `stay`, it then
// stays alive (its client may still be sending) until the parent sends 'exit', and reports its
// stats again ('after').

import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const { host, spoolDir, stay } = JSON.parse(process.env.SPOOL_REPLAYER)
const root = process.env.SPOOL_TRACKER_ROOT
const now = () => performance.timeOrigin + performance.now()

const { Analytics } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
let errors = 0
let replay
let firstFlushAt
let delivered = 0
let dropped = 0
const cpu0 = process.cpuUsage()
const t0 = now()
const client = new Analytics('bench-write-key', { host, spool: { dir: spoolDir }, errorHandler: () => (errors += 1) })
const constructedAt = now()
client.on('replay', (e) => (replay = e))
client.on('flush', (e) => {
  firstFlushAt ??= now()
  delivered += e.replayed ?? 0
})
client.on('drop', (e) => (dropped += e.replayed ?? 0))
const result = await client.closeAndFlush()
const doneAt = now()
const cpu = process.cpuUsage(cpu0)
const stats = client.stats()
const { spool, queued, inFlight } = stats
process.send(
  {
    type: 'replayed',
    startedAt: t0,
    constructMs: constructedAt - t0,
    firstFlushMs: firstFlushAt === undefined ? undefined : firstFlushAt - t0,
    ms: doneAt - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    waiting: result?.waiting,
    replayEvent: replay,
    replayedDelivered: delivered,
    replayedDropped: dropped,
    errors,
    spool,
    // What the client still held when closeAndFlush() resolved (both 0 when it waited for all).
    queued,
    inFlight,
  },
  () => (stay ? undefined : process.exit(0)),
)
if (stay) {
  process.on('message', (m) => {
    if (m?.type !== 'exit') return
    const later = client.stats()
    const cpuAll = process.cpuUsage(cpu0)
    process.send(
      {
        type: 'after',
        queued: later.queued,
        inFlight: later.inFlight,
        cpuMs: (cpuAll.user + cpuAll.system) / 1000,
        replayedDelivered: delivered,
      },
      () => process.exit(0),
    )
  })
}
