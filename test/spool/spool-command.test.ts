import { execFileSync } from 'node:child_process'
import { chmodSync, lstatSync, readFileSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { createCollector, type Collector } from '../../src/collector'
import { startFaultServer, until, type FaultServer } from '../faults/fault-server'
import { assertBuilt, startCli, type Run } from '../import/run-cli'
import { deadPart, filesUnder, frame, ownerJson, refusedUrl, ROOT, runChild, segment, spoolTestFile, wireMessage } from './helpers'

// Issue 32, part 4: `eventrail spool inspect|verify|export|purge` against spools left by a real
// `kill -9` of a child process (the built package) writing to them, run as the real bin
// (dist/cli.cjs), and the export fed to `eventrail import` against the local collector on
// 127.0.0.1: every message that waited arrives.

const { tempDir } = spoolTestFile()
let collector: Collector | undefined
const servers: FaultServer[] = []
beforeAll(assertBuilt)
afterEach(async () => {
  await collector?.close()
  collector = undefined
  for (const server of servers.splice(0)) await server.close()
})

const KEY = 'spool-child-key'
const spool = (args: string[], stdin?: Buffer): Promise<Run> => startCli(path.dirname(args[args.length - 1]), ['spool', ...args], stdin).done

/** Every file under `dir` with its size and modification time: what a read-only command must leave as it was. */
function snapshot(dir: string): string[] {
  return filesUnder(dir).map((f) => {
    const s = lstatSync(path.join(dir, f))
    return `${f} ${s.size} ${s.mtimeMs} ${s.mode}`
  })
}

/** A child tracks `count` messages with the service down and SIGKILLs itself: its accepted ids. */
async function killedChild(dir: string, count: number): Promise<string[]> {
  const child = runChild('track.mjs', [JSON.stringify({ host: await refusedUrl(), dir, count, prefix: 'k', mode: 'kill-self' })])
  const { signal } = await child.done
  expect(signal).toBe('SIGKILL')
  return child.tagged('ACCEPTED')
}

const idsOf = (jsonl: string): string[] =>
  jsonl
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l).messageId)

describe('eventrail spool on a spool left by kill -9', () => {
  it('inspect, verify and export change nothing; the export imported into the collector delivers every waiting message once', async () => {
    const dir = tempDir()
    const ids = await killedChild(dir, 200)
    expect(ids).toHaveLength(200)
    const before = snapshot(dir)

    const inspected = await spool(['inspect', '--json', dir])
    expect(inspected.code).toBe(0)
    const report = JSON.parse(inspected.stdout)
    expect(report.totals).toMatchObject({ parts: 1, waiting: 200, torn: 0, rejected: 0 })
    expect(report.parts[0].owner).toMatchObject({ state: 'gone' })
    expect(report.parts[0].segments[0]).toMatchObject({ records: 200, acked: 0, waiting: 200, torn: 0, cutOff: false, invalid: 0 })
    const text = await spool(['inspect', dir])
    expect(text.stdout).toContain('1 part, 200 waiting')
    expect(text.stdout).toContain('client gone')

    expect(await spool(['verify', dir])).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse((await spool(['verify', '--json', dir])).stdout)).toMatchObject({ clean: true, damage: [] })

    const exported = await spool(['export', dir])
    expect(exported.code).toBe(0)
    expect(exported.stderr).toContain('200 waiting records written')
    expect(idsOf(exported.stdout).sort()).toEqual([...ids].sort())
    expect(snapshot(dir)).toEqual(before)

    collector = await createCollector({ writeKeys: [KEY] })
    const file = path.join(tempDir(), 'waiting.jsonl')
    writeFileSync(file, exported.stdout)
    const imported = await startCli(path.dirname(file), ['import', file, '--write-key', KEY, '--host', collector.url]).done
    expect(imported.code).toBe(0)
    const arrived = collector.messages.filter((m) => m.verdict === 'accepted').map((m) => m.message.messageId as string)
    expect(arrived.sort()).toEqual([...ids].sort())
    expect(snapshot(dir)).toEqual(before)
  }, 60_000)

  it('with a working service killed at a random moment: what was delivered before and what the export imports cover every accepted message', async () => {
    const dir = tempDir()
    const sink = await startFaultServer()
    servers.push(sink)
    const child = runChild('track.mjs', [JSON.stringify({ host: sink.url, dir, count: 5_000, prefix: 'w', mode: 'steady', perTick: 2, everyMs: 5 })])
    const at = 50 + Math.floor(Math.random() * 300)
    await until(() => child.tagged('ACCEPTED').length >= at, 40_000, `${at} accepted ids`)
    child.kill('SIGKILL')
    await child.done
    const ids = child.tagged('ACCEPTED')

    const report = JSON.parse((await spool(['inspect', '--json', dir])).stdout)
    const exported = await spool(['export', dir])
    const waiting = idsOf(exported.stdout)
    expect(waiting).toHaveLength(report.totals.waiting)

    collector = await createCollector({ writeKeys: [KEY] })
    const file = path.join(tempDir(), 'waiting.jsonl')
    writeFileSync(file, exported.stdout)
    expect((await startCli(path.dirname(file), ['import', file, '--write-key', KEY, '--host', collector.url]).done).code).toBe(0)
    const imported = new Set(collector.messages.map((m) => m.message.messageId as string))
    expect(imported.size).toBe(waiting.length)
    expect(ids.filter((id) => !sink.accepted.has(id) && !imported.has(id))).toEqual([])
  }, 60_000)

  it('verify exits 1 naming a record whose bytes were damaged and a segment cut off; inspect counts them torn; export never writes them', async () => {
    const dir = tempDir()
    await killedChild(dir, 20)
    const [log] = filesUnder(dir).filter((f) => f.endsWith('.log'))
    const file = path.join(dir, log)
    const data = readFileSync(file)
    // A byte in the third record's message, and the last record cut in half.
    let third = 8
    for (let i = 0; i < 2; i++) third += 8 + data.readUInt32LE(third)
    data[third + 8 + 20] ^= 0x01
    writeFileSync(file, data.subarray(0, data.length - 30))

    const verified = await spool(['verify', dir])
    expect(verified.code).toBe(1)
    expect(verified.stdout).toContain(`${log}: 1 record failing its checksum`)
    expect(verified.stdout).toContain(`${log}: cut off after record 19`)
    const report = JSON.parse((await spool(['inspect', '--json', dir])).stdout)
    expect(report.parts[0].segments[0]).toMatchObject({ records: 19, torn: 1, cutOff: true, waiting: 18 })
    expect(report.totals.torn).toBe(2)
    const exported = idsOf((await spool(['export', dir])).stdout)
    expect(exported).toEqual(Array.from({ length: 19 }, (_, i) => `k${i}`).filter((id) => id !== 'k2'))
  }, 30_000)
})

describe('eventrail spool purge', () => {
  it('leaves a live client’s part alone, refuses without --yes off a terminal, and with --yes deletes only a gone client’s part', async () => {
    const dir = tempDir()
    const live = runChild('track.mjs', [JSON.stringify({ host: await refusedUrl(), dir, count: 10, prefix: 'l', mode: 'steady' })])
    await until(() => live.lines.includes('DONE'), 20_000, 'the live child')
    const gone = await deadPart(dir, { '000001.log': segment(frame(wireMessage('g1')), frame(wireMessage('g2'))) }, { key: KEY, host: 'http://x' })

    const report = JSON.parse((await spool(['inspect', '--json', dir])).stdout)
    expect(report.parts.map((p: any) => p.owner.state).sort()).toEqual(['alive', 'gone'])
    // Export reads the live client's part too, and says that it may send those records itself.
    const exported = await spool(['export', dir])
    expect(idsOf(exported.stdout)).toHaveLength(12)
    expect(exported.stderr).toContain('10 of them belong to a client that is alive')
    const before = snapshot(dir)
    const refused = await spool(['purge', dir])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('add --yes')
    expect(snapshot(dir)).toEqual(before)

    const purged = await spool(['purge', '--yes', dir])
    expect(purged.code).toBe(0)
    expect(purged.stdout).toContain('Deleted 2 waiting records')
    expect(purged.stderr).toContain('its client is alive')
    expect(filesUnder(dir).some((f) => f.startsWith(path.basename(gone)))).toBe(false)
    expect(filesUnder(dir).filter((f) => f.endsWith('.log'))).toHaveLength(1)
    live.kill('SIGKILL')
    await live.done
  }, 30_000)
})

describe('eventrail spool follows the spool’s trust rules', () => {
  it('refuses a directory others may write to, reading nothing in it', async () => {
    const dir = tempDir()
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('t1'))) }, { key: KEY, host: 'http://x' })
    chmodSync(dir, 0o777)
    for (const action of ['inspect', 'verify', 'export']) {
      const run = await spool([action, dir])
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('chmod 700')
      expect(run.stdout).toBe('')
    }
  })

  it('reads no owner file through a link or a FIFO, and no segment larger than the format allows; verify names them', async () => {
    const dir = tempDir()
    const tenant = { key: KEY, host: 'http://x' }
    const linked = await deadPart(dir, { '000001.log': segment(frame(wireMessage('l1'))) }, tenant, 'linked00')
    const elsewhere = path.join(tempDir(), 'owner.json')
    writeFileSync(elsewhere, ownerJson(1, tenant))
    unlinkSync(path.join(linked, 'owner.json'))
    symlinkSync(elsewhere, path.join(linked, 'owner.json'))
    const fifo = await deadPart(dir, { '000001.log': segment(frame(wireMessage('f1'))) }, tenant, 'fifo0000')
    unlinkSync(path.join(fifo, 'owner.json'))
    execFileSync('mkfifo', [path.join(fifo, 'owner.json')])
    const big = await deadPart(dir, { '000001.log': segment(frame(wireMessage('b1'))) }, tenant, 'big00000')
    truncateSync(path.join(big, '000001.log'), 5 * 1024 * 1024)

    const report = JSON.parse((await spool(['inspect', '--json', dir])).stdout)
    const byName = Object.fromEntries(report.parts.map((p: any) => [p.name.split('-').pop(), p]))
    expect(byName.linked00.problem).toContain('owner file cannot be read')
    expect(byName.fifo0000.problem).toContain('owner file cannot be read')
    expect(byName.big00000.segments[0].problem).toContain('has 5242880 bytes')
    // Shown (their records are whole), though no client will send them.
    expect(report.totals.waiting).toBe(2)
    const verified = await spool(['verify', dir])
    expect(verified.code).toBe(1)
    expect(verified.stdout).toContain('part-')
    expect(verified.stdout).toContain('has 5242880 bytes')
    // A part whose owner cannot be read says whose it is to nobody: a client never sends it, nor does export.
    expect(idsOf((await spool(['export', dir])).stdout)).toEqual([])
  })

  it('export --write-key writes only the records of that key and host', async () => {
    const dir = tempDir()
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('a1'))) }, { key: 'key-a', host: 'http://a.test' }, 'aaaaaaaa')
    await deadPart(dir, { '000001.log': segment(frame(wireMessage('b1'))) }, { key: 'key-b', host: 'http://a.test' }, 'bbbbbbbb')
    const all = await spool(['export', dir])
    expect(idsOf(all.stdout).sort()).toEqual(['a1', 'b1'])
    expect(all.stderr).toContain('2 write keys or hosts')
    expect(idsOf((await spool(['export', '--write-key', 'key-b', '--host', 'http://a.test', dir])).stdout)).toEqual(['b1'])
  })

  it('eventrail --help lists the command, and eventrail help spool shows its actions', async () => {
    expect((await startCli(tempDir(), ['--help']).done).stdout).toContain('spool     look after a disk spool')
    const help = await startCli(tempDir(), ['help', 'spool']).done
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/inspect DIR[\s\S]*verify DIR[\s\S]*export DIR[\s\S]*purge DIR/)
  })

  it.each([
    [['frob', '/tmp'], 'unknown action "frob"'],
    [['inspect'], 'needs the spool'],
    [['inspect', '--yes', '/tmp'], '--yes is not an option of inspect'],
    [['export', '--host', 'http://h', '/tmp'], '--host needs --write-key'],
  ])('usage error %j exits 2', async (args, message) => {
    const run = await startCli(tempDir(), ['spool', ...args]).done
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
  })
})

describe('eventrail spool is loaded only by its command', () => {
  it('dist/cli.cjs requires its chunk in main(), not at start: eventrail dev and import do not load it', () => {
    const cli = readFileSync(path.join(ROOT, 'dist', 'cli.cjs'), 'utf8')
    // The CommonJS build turns the source's import() into a require() inside a promise.
    const chunk = /then\(\(\) => .*require\("\.\/(spool-command-[\w-]+\.cjs)"\)/.exec(cli)?.[1]
    expect(chunk).toBeDefined()
    const staticImports = cli.split('\n').filter((line) => /^(var \w+ = )?require\(/.test(line))
    expect(staticImports.filter((line) => line.includes('spool-command'))).toEqual([])
    // Nor does the library's entry point.
    expect(readFileSync(path.join(ROOT, 'dist', 'index.js'), 'utf8')).not.toContain('spool-command')
  })
})
