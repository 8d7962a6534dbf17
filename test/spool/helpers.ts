import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import * as http from 'node:http'
import { hostname, tmpdir } from 'node:os'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import type { Analytics } from '../../src'
import { ackWord } from '../../src/durability/spool/segment-files'

// Shared by the spool tests: temporary spool directories, segment files written by hand (the
// format of src/durability/spool/frame.ts), dead pids, and children that run the BUILT package.

export const ROOT = path.resolve(__dirname, '..', '..')
export const DIST_ESM = path.join(ROOT, 'dist', 'index.js')
const FIXTURES = path.join(__dirname, 'fixtures')

/** Temporary directories under the OS temp directory, removed after each test of the file. */
export function useTempDirs(): () => string {
  const made: string[] = []
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eventrail-spool-'))
    made.push(dir)
    return dir
  }
}

/** No unhandled rejection may happen during a test of the file. */
export function failOnUnhandledRejections(): void {
  let unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason)
  }
  beforeAll(() => process.on('unhandledRejection', onUnhandled))
  afterAll(() => process.off('unhandledRejection', onUnhandled))
  beforeEach(() => {
    unhandled = []
  })
  afterEach(() => expect(unhandled).toEqual([]))
}

/**
 * Clients made in a test are closed after it, also when it fails before its own closeAndFlush():
 * a spool's timer left running would make its directory again after the test removed it. Call it
 * before useTempDirs(): afterEach hooks run in the order they were added.
 */
/**
 * What every spool test file sets up: no unhandled rejection, each client closed after its test,
 * temp dirs removed after the file.
 */
export function spoolTestFile(): { keep: <T extends Analytics>(client: T) => T; tempDir: () => string } {
  failOnUnhandledRejections()
  return { keep: closeAfterEach(), tempDir: useTempDirs() }
}

export function closeAfterEach(): <T extends Analytics>(client: T) => T {
  const open: Analytics[] = []
  afterEach(async () => {
    for (const client of open.splice(0)) await client.closeAndFlush({ timeout: 1_000 }).catch(() => undefined)
  })
  return (client) => {
    open.push(client)
    return client
  }
}

/** The URL of a port on 127.0.0.1 that nobody listens on: connections are refused. */
export async function refusedUrl(): Promise<string> {
  const probe = http.createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return `http://127.0.0.1:${port}`
}

/** The pid of a process that has exited (and been reaped). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.on('close', resolve))
  return child.pid as number
}

const MAGIC = Buffer.from('ERSPOOL1', 'latin1')

/** One record: u32 length | u32 crc32 | payload ('b' or 'a', then the message's JSON), little-endian. */
export function frame(message: object, kind: 'a' | 'b' = 'b'): Buffer {
  return frameText(JSON.stringify(message), kind)
}

/** A record of any text, its checksum right: what a hostile or buggy writer could leave. */
export function frameText(text: string, kind: 'a' | 'b' = 'b'): Buffer {
  const payload = Buffer.from(kind + text, 'utf8')
  const header = Buffer.alloc(8)
  header.writeUInt32LE(payload.length, 0)
  header.writeUInt32LE(zlib.crc32(payload), 4)
  return Buffer.concat([header, payload])
}

/** An ack file's bytes: each ordinal as the spool writes it (with its check bits, see segment-files.ts). */
export function ackFile(...ordinals: number[]): Buffer {
  const buffer = Buffer.alloc(ordinals.length * 4)
  ordinals.forEach((o, k) => buffer.writeUInt32LE(ackWord(o), k * 4))
  return buffer
}

/** A segment file's bytes: the magic, then the records. */
export function segment(...records: Buffer[]): Buffer {
  return Buffer.concat([MAGIC, ...records])
}

/** A wire message as the client writes it to the spool (a fixed timestamp: the one of the call, long ago). */
export function wireMessage(id: string): Record<string, unknown> {
  return {
    type: 'track',
    messageId: id,
    timestamp: '2026-01-02T03:04:05.006Z',
    userId: `user-${id}`,
    event: 'Spool Test',
    properties: { id },
  }
}

/** Whose records a part holds: they may be sent only with this write key to this host. */
export interface Tenant {
  readonly key: string
  readonly host: string
}

/** The tenant tag of a part's owner.json (docs/spool.md, "Who may read what"), computed here on its own. */
export function tenantTag({ key, host }: Tenant): string {
  return createHash('sha256').update(`eventrail-spool\0${key}\0${host}`).digest('hex').slice(0, 32)
}

/** The owner.json of a part: its pid, host and tenant. */
export function ownerJson(pid: number, tenant: Tenant, host = hostname()): string {
  return JSON.stringify({ pid, host, started: new Date().toISOString(), tenant: tenantTag(tenant) })
}

/**
 * Makes the part of a dead client of `tenant` by hand: `<dir>/part-<pid>-<suffix>/owner.json`
 * (this host, a pid that is gone) and the files given (name → bytes), owner-only as the spool
 * makes them. Returns the part's path.
 */
export async function deadPart(dir: string, files: Record<string, Buffer>, tenant: Tenant, suffix = 'deadbeef'): Promise<string> {
  const pid = await deadPid()
  const part = path.join(dir, `part-${pid}-${suffix}`)
  mkdirSync(part, { recursive: true, mode: 0o700 })
  writeFileSync(path.join(part, 'owner.json'), ownerJson(pid, tenant))
  for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(part, name), bytes)
  return part
}

/** Every file and link under `dir` (relative paths), sorted. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...filesUnder(full).map((f) => path.join(entry.name, f)))
    else out.push(entry.name)
  }
  return out.sort()
}

/** The segment files (`*.log`) under `dir`: none once every record has its outcome. */
export function segmentFiles(dir: string): string[] {
  return filesUnder(dir).filter((f) => f.endsWith('.log'))
}

/** Reads a segment file: its whole records' messages, and the bytes after them that are not one. */
export function readSegment(file: string): { messages: any[]; rest: number } {
  const data = readFileSync(file)
  expect(data.subarray(0, 8).equals(MAGIC)).toBe(true)
  const messages: any[] = []
  let at = 8
  while (at + 8 <= data.length) {
    const length = data.readUInt32LE(at)
    if (at + 8 + length > data.length) break
    const payload = data.subarray(at + 8, at + 8 + length)
    if (zlib.crc32(payload) !== data.readUInt32LE(at + 4)) break
    messages.push(JSON.parse(payload.toString('utf8', 1)))
    at += 8 + length
  }
  return { messages, rest: data.length - at }
}

/** A child process running a fixture with node; stdout is read line by line as it comes. */
export interface Child {
  readonly pid: number
  /** Complete lines printed so far. */
  readonly lines: string[]
  /** The lines `<tag> <rest>`: their rest. */
  tagged(tag: string): string[]
  write(text: string): void
  kill(signal: NodeJS.Signals): void
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
}

/** Starts `node <fixture> ...args`; it is SIGKILLed if still running after `limitMs`. */
export function runChild(fixture: string, args: string[], limitMs = 60_000): Child {
  if (!existsSync(DIST_ESM)) throw new Error(`dist/ is missing (${DIST_ESM}): run "npm run build" first (npm test builds before testing)`)
  const child = spawn(process.execPath, [path.join(FIXTURES, fixture), ...args], {
    cwd: ROOT,
    env: { ...process.env, EVENTRAIL_DIST: DIST_ESM },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let partial = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n')
    partial = parts.pop() ?? ''
    lines.push(...parts)
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  child.stdin.on('error', () => undefined)
  const limit = setTimeout(() => child.kill('SIGKILL'), limitMs)
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(limit)
      resolve({ code, signal, stderr })
    })
  })
  return {
    pid: child.pid as number,
    lines,
    tagged: (tag) => lines.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1)),
    write: (text) => child.stdin.write(text),
    kill: (signal) => child.kill(signal),
    done,
  }
}

/** The one `RESULT {json}` line of a child, parsed. */
export function resultOf(child: Child): any {
  const [line] = child.tagged('RESULT')
  if (line === undefined) throw new Error(`no RESULT line; stdout:\n${child.lines.join('\n')}`)
  return JSON.parse(line)
}
