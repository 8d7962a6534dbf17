import { gunzipSync } from 'node:zlib'
import { Analytics, SpoolError } from '../../src'
import { SPOOL_FS } from '../../src/config/spool-option'
import type { FaultServer } from '../faults/fault-server'
import { trackMessage } from '../faults/outcomes'
import { releasePart } from '../../src/durability/spool/parts'
import { CrashFs, rng } from './crash-fs'
import { ackFile, frame, ownerJson, segment, wireMessage } from './helpers'

// Issue 32: one power cut, seeded. A gone client's part is on the disk (durable); client A takes
// it over and tracks messages while the service goes down and up, flushes now and then, and the
// power goes at a random operation of the disk (or at the end). Client B then starts on what the
// disk kept and sends to the same service (a real HTTP server on 127.0.0.1). What arrived must be:
// - every message accepted before the last flush that ended before the cut with no failed sync
//   (flush() syncs: "a power loss loses at most the last second"), and every record of the gone part;
// - only messages that were accepted (nothing made up), each exactly as accepted (nothing corrupt);
// - each at most twice (once before the cut, once more by B), plus once more per failed sync
//   (its records were written again: docs/spool.md); a record acked on the disk, at most once; a
//   message refused with 401 (kept for a client set up right) once per copy of it on the disk.

/** What one trial found. */
export interface Trial {
  readonly seed: number
  readonly violations: string[]
  /** Whether the power went in the middle of the run (else at its end). */
  readonly cutMidway: boolean
  readonly ops: number
  readonly failedSyncs: number
  readonly delivered: number
}

/** The messageIds of a request's body (gzipped or not). */
function messagesOf(init: RequestInit | undefined): string[] {
  try {
    let body = init?.body as Uint8Array | string | undefined
    if (body instanceof Uint8Array && body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body)
    const text = typeof body === 'string' ? body : Buffer.from(body ?? new Uint8Array()).toString('utf8')
    const parsed = JSON.parse(text) as { batch?: { messageId?: string }[]; messageId?: string }
    return (parsed.batch ?? [parsed]).flatMap((m) => (typeof m.messageId === 'string' ? [m.messageId] : []))
  } catch {
    return []
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Runs the trial of `seed` against `server` (answering 200), with `deadPid` a pid that is gone. */
export async function crashTrial(seed: number, server: FaultServer, deadPid: number): Promise<Trial> {
  const random = rng(seed)
  const root = `/crash/${seed}`
  const key = `crash-key-${seed}`
  const disk = new CrashFs({
    cutAt: 1 + Math.floor(random() * 80),
    syncFailure: random() < 0.3 ? 0.25 : 0,
    random,
  })
  const tracked = new Map<string, { event: string; userId: string; properties: unknown }>()
  const required = new Set<string>()
  const ackedOnDisk = new Set<string>()
  const first = server.acceptedMessages.length

  // The gone client's part: records, some of them acked.
  const zIds = Array.from({ length: Math.floor(random() * 12) }, (_, i) => `z${seed}-${i}`)
  const part = `${root}/part-${deadPid}-z${seed}`
  disk.put(`${part}/owner.json`, Buffer.from(ownerJson(deadPid, { key, host: server.url })))
  if (zIds.length > 0) {
    disk.put(`${part}/000001.log`, segment(...zIds.map((id) => frame(wireMessage(id)))))
    const acked = zIds.flatMap((_, o) => (random() < 0.2 ? [o] : []))
    if (acked.length > 0) disk.put(`${part}/000001.ack`, ackFile(...acked))
    zIds.forEach((id, o) => {
      const m = wireMessage(id)
      tracked.set(id, { event: m.event as string, userId: m.userId as string, properties: m.properties })
      if (acked.includes(o)) ackedOnDisk.add(id)
      else required.add(id)
    })
  }

  // The service: up; down (503: messages wait); or refusing the write key (401: records are kept
  // on disk for a client set up right, and compacted: copied forward, their segment deleted).
  let service: 'up' | 'down' | 'refusing' = random() < 0.3 ? 'refusing' : 'up'
  // Messages refused with 401: kept on disk for a client set up right, and copied forward as
  // their segments are done; after a power loss each copy not yet deleted is sent (docs/spool.md).
  const refused = new Set<string>()
  let syncErrors = 0
  const fetchA = (url: string, init?: RequestInit): Promise<Response> => {
    if (disk.cut) return Promise.reject(new TypeError('fetch failed: the power is off'))
    if (service === 'refusing') for (const m of messagesOf(init)) refused.add(m)
    if (service !== 'up') return Promise.resolve(new Response('{}', { status: service === 'down' ? 503 : 401 }))
    return fetch(url, init)
  }
  const a = new Analytics(key, {
    host: server.url,
    fetch: fetchA,
    flushAt: 1 + Math.floor(random() * 20),
    maxRetries: 1,
    retryDelay: 1,
    maxQueueSize: 5 + Math.floor(random() * 40),
    spool: { dir: root, [SPOOL_FS]: disk.fs } as never,
  })
  a.on('error', (err) => {
    if (SpoolError.is(err) && err.code === 'ESYNC') syncErrors += 1
  })
  let n = 0
  // Large enough that a run fills a segment (64 KiB) now and then: segments are sealed, begun, deleted.
  const pad = 'x'.repeat(Math.floor(random() * 3000))
  const steps = 4 + Math.floor(random() * 10)
  for (let step = 0; step < steps && !disk.cut; step++) {
    const what = random()
    if (what < 0.55) {
      for (let k = Math.floor(random() * 15); k >= 0 && !disk.cut; k--) {
        const id = `a${seed}-${n++}`
        const m = trackMessage(id, { pad })
        tracked.set(id, { event: m.event, userId: m.userId, properties: m.properties })
        a.track(m)
      }
    } else if (what < 0.8) {
      // A flush while the service is down waits for a probe (about a second): now and then only.
      if (service === 'down' && random() < 0.9) {
        service = 'up'
        continue
      }
      const before = [...tracked.keys()].filter((id) => id.startsWith('a'))
      const errorsBefore = syncErrors
      await a.flush().catch(() => undefined)
      const beforeCut = !disk.cut
      await settle()
      if (beforeCut && syncErrors === errorsBefore) for (const id of before) required.add(id)
    } else if (what < 0.9) service = service !== 'up' ? 'up' : random() < 0.3 ? 'down' : 'refusing'
    else await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 5)))
  }
  const cutMidway = disk.cut
  disk.cutNow()
  await a.closeAndFlush({ timeout: 50 }).catch(() => undefined)
  // B is a new boot: no client of this process holds A's part any more (a close cut short by its
  // timeout may not have let it go).
  const partA = a.stats().spool?.part
  if (partA !== undefined) releasePart(partA)

  // A new boot: client B on what the disk kept.
  const image = disk.image()
  if (process.env.EVENTRAIL_CRASH_TRACE === '1')
    process.stdout.write(`after the cut:\n${[...image.files(root)].map(([path, data]) => `  ${path} ${data.length}`).join('\n')}\n`)
  const violations: string[] = []
  const b = new Analytics(key, { host: server.url, spool: { dir: root, [SPOOL_FS]: image.fs } as never })
  b.on('error', (err) => {
    if (!(SpoolError.is(err) && err.code === 'EBADRECORD'))
      violations.push(`B reported ${err.name} ${(err as { code?: string }).code ?? ''}: ${err.message}`)
  })
  const outcome = (await b.closeAndFlush({ timeout: 5_000 })) as { waiting?: number } | undefined
  if ((outcome?.waiting ?? 0) > 0) violations.push(`B closed with ${outcome?.waiting} waiting`)

  const counts = new Map<string, number>()
  for (const m of server.acceptedMessages.slice(first)) {
    const id = m.messageId as string
    counts.set(id, (counts.get(id) ?? 0) + 1)
    const want = tracked.get(id)
    if (want === undefined) violations.push(`never accepted: ${id}`)
    else if (m.event !== want.event || m.userId !== want.userId || JSON.stringify(m.properties) !== JSON.stringify(want.properties))
      violations.push(`corrupt: ${id} arrived as ${JSON.stringify(m)}`)
  }
  for (const id of required) if (!counts.has(id)) violations.push(`lost: ${id} (accepted before the last good sync)`)
  const most = 2 + disk.failedSyncs
  for (const [id, count] of counts) {
    if (ackedOnDisk.has(id) && count > 1) violations.push(`${id} was acked on the disk and sent ${count} times`)
    if (count > most && !refused.has(id)) violations.push(`${id} sent ${count} times (at most ${most})`)
  }
  // Thousands of trials in a soak: what the server kept of this one goes.
  server.requests.length = 0
  server.acceptedMessages.length = 0
  server.accepted.clear()
  return { seed, violations, cutMidway, ops: disk.ops, failedSyncs: disk.failedSyncs, delivered: counts.size }
}
