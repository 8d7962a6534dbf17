import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { Analytics, QueueFullError, ValidationError, type DropInfo } from '../../src'
import { startFaultServer, type FaultServer } from '../faults/fault-server'
import { Outcomes, trackMessage } from '../faults/outcomes'
import { segmentFiles, spoolTestFile } from './helpers'

// Issue 22: "spool.maxBytes (choose a default); past it a clear error (QueueFullError)", and the
// option's mistakes name the field.

const { keep, tempDir } = spoolTestFile()
let server: FaultServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const MIB = 1024 * 1024

describe('spool.maxBytes', () => {
  it('past it, the call gets a QueueFullError naming the spool; the messages before it are delivered; room comes back', async () => {
    server = await startFaultServer()
    const dir = tempDir()
    const drops: DropInfo[] = []
    const analytics = keep(new Analytics('limit-key', { host: server.url, spool: { dir, maxBytes: MIB } })).on('drop', (d) => drops.push(d))
    const outcomes = new Outcomes()
    const pad = 'x'.repeat(20_000)
    // ~20 KB messages in one synchronous run: no answer can ack a record meanwhile.
    for (let i = 0; i < 60; i++) analytics.track(trackMessage(`b${i}`, { pad }), outcomes.callback(`b${i}`))
    await analytics.flush()

    expect(outcomes.notExactlyOnce()).toEqual([])
    const refused = [...outcomes.entries()].filter(([, o]) => o.error !== undefined).map(([id]) => id)
    const first = 60 - refused.length
    expect(first).toBeGreaterThan(40)
    expect(first).toBeLessThan(52)
    expect(refused).toEqual(Array.from({ length: 60 - first }, (_, i) => `b${first + i}`))
    const error = outcomes.get(`b${first}`)?.error as QueueFullError
    expect(error).toBeInstanceOf(QueueFullError)
    expect(error.message).toMatch(/the spool is full/)
    expect(error.message).toContain(`spool.maxBytes ${MIB}`)
    expect(error.message).toContain(dir)
    expect(drops.reduce((n, d) => n + d.count, 0)).toBe(60 - first)
    for (let i = 0; i < first; i++) expect(server.accepted.get(`b${i}`)).toBe(1)
    expect(server.accepted.size).toBe(first)

    // Delivered records are reclaimed: the spool takes messages again.
    expect(analytics.stats().spool?.bytes).toBeLessThan(MIB / 2)
    analytics.track(trackMessage('again', { pad }), outcomes.callback('again'))
    await analytics.closeAndFlush()
    expect(outcomes.get('again')).toEqual({ calls: 1, error: undefined })
    expect(server.accepted.get('again')).toBe(1)
    expect(segmentFiles(dir)).toEqual([])
  })

  it('1 MiB exactly is accepted', async () => {
    const analytics = keep(new Analytics('limit-key', { host: 'http://127.0.0.1:9', spool: { dir: tempDir(), maxBytes: MIB } }))
    expect(analytics.stats().spool?.available).toBe(true)
    await analytics.closeAndFlush()
  })
})

describe('the spool option is checked, and its mistakes name the field', () => {
  it.each<[string, unknown, string]>([
    ['not an object', '/tmp/spool', 'spool'],
    ['dir missing', {}, 'spool.dir'],
    ['dir empty', { dir: '' }, 'spool.dir'],
    ['dir not a string', { dir: 42 }, 'spool.dir'],
    ['maxBytes under 1 MiB', { dir: 'DIR', maxBytes: MIB - 1 }, 'spool.maxBytes'],
    ['maxBytes not an integer', { dir: 'DIR', maxBytes: 2 * MIB + 0.5 }, 'spool.maxBytes'],
    ['maxBytes a string', { dir: 'DIR', maxBytes: '2 MiB' }, 'spool.maxBytes'],
    ['an unknown key', { dir: 'DIR', maxbytes: 2 * MIB }, 'spool.maxbytes'],
  ])('%s: a ValidationError for %j names %s, and nothing is made on disk', (_name, option, field) => {
    const dir = path.join(tempDir(), 'spool')
    const spool = typeof option === 'object' && option !== null && (option as { dir?: unknown }).dir === 'DIR' ? { ...option, dir } : option
    let thrown: unknown
    try {
      new Analytics('limit-key', { spool: spool as never })
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(ValidationError)
    expect((thrown as ValidationError).field).toBe(field)
    expect((thrown as Error).message).toContain(`"${field}"`)
    expect(existsSync(dir)).toBe(false)
  })
})
