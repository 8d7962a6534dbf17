// One measurement of bench/spool-floor.mjs, in a fresh process: argv[2] the mode, argv[3] the
// sink's port. Sends { cpuUs, sysUs, cpuMs, requests } to the parent.

import { randomUUID } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32 } from 'node:zlib'
import { orderCompleted } from './events.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const { Analytics } = createRequire(import.meta.url)(join(root, 'dist', 'index.cjs'))
const [mode, port] = process.argv.slice(2)
const CALLS = 200_000
const PER_YIELD = 100
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve))

function gcNow() {
  for (let i = 0; i < 4; i++) globalThis.gc()
}

// Calls `each(i)` CALLS times in runs of 100, yielding to the event loop between runs, as the
// bench's scenario 1 does; returns the process's CPU over it (and over `after`).
async function timed(each, after = async () => {}, make = orderCompleted) {
  const batch = new Array(PER_YIELD)
  gcNow()
  const cpu0 = process.cpuUsage()
  for (let start = 0; start < CALLS; start += PER_YIELD) {
    for (let i = 0; i < PER_YIELD; i++) batch[i] = make(start + i)
    for (let i = 0; i < PER_YIELD; i++) each(batch[i])
    await yieldToLoop()
  }
  await after()
  return process.cpuUsage(cpu0)
}

async function clientWithoutRequests(withSpool) {
  const dir = withSpool ? mkdtempSync(join(tmpdir(), 'eventrail-floor-')) : undefined
  const client = new Analytics('floor-key', { enable: false, ...(dir ? { spool: { dir } } : {}) })
  const cpu = await timed(
    (m) => client.track(m),
    () => client.flush(),
  )
  await client.closeAndFlush()
  if (dir) rmSync(dir, { recursive: true, force: true })
  return { cpu, requests: 0 }
}

// The spool's frame: u32 length, u32 CRC-32 of the payload, a kind byte and the message's JSON
// (serialized before the clock starts: the client serializes a message with or without the spool).
async function bareWrites() {
  const dir = mkdtempSync(join(tmpdir(), 'eventrail-floor-'))
  const fd = openSync(join(dir, 'records'), 'a')
  const scratch = Buffer.allocUnsafe(64 * 1024)
  const texts = Array.from({ length: CALLS }, (_, i) => JSON.stringify({ type: 'track', messageId: randomUUID(), ...orderCompleted(i) }))
  const cpu = await timed(
    (json) => {
      scratch[8] = 0x62
      const end = 9 + scratch.write(json, 9, 'utf8')
      scratch.writeUInt32LE(end - 8, 0)
      scratch.writeUInt32LE(crc32(scratch.subarray(8, end)), 4)
      writeSync(fd, scratch, 0, end)
    },
    undefined,
    (i) => texts[i],
  )
  closeSync(fd)
  rmSync(dir, { recursive: true, force: true })
  return { cpu, requests: 0 }
}

// 100,000 events sent `per` at a time, each group awaited: the CPU of the whole, and its requests.
async function requests(per) {
  const client = new Analytics('floor-key', { host: `http://127.0.0.1:${port}`, flushAt: 100_000, flushInterval: 1e9 })
  const messages = Array.from({ length: 100_000 }, (_, i) => orderCompleted(i))
  gcNow()
  const cpu0 = process.cpuUsage()
  for (let start = 0; start < messages.length; start += per) {
    for (let i = start; i < start + per; i++) client.track(messages[i])
    await client.flush()
  }
  const cpu = process.cpuUsage(cpu0)
  const count = client.stats().requests
  await client.closeAndFlush()
  return { cpu, requests: count }
}

const run =
  mode === 'plain' || mode === 'spool'
    ? clientWithoutRequests(mode === 'spool')
    : mode === 'write'
      ? bareWrites()
      : requests(Number(mode.split('-')[1]))
const { cpu, requests: count } = await run
const n = mode.startsWith('request') ? 100_000 : CALLS
process.send({ cpuUs: (cpu.user + cpu.system) / n, sysUs: cpu.system / n, cpuMs: (cpu.user + cpu.system) / 1000, requests: count }, () =>
  process.exit(0),
)
