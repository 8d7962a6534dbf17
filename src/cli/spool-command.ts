import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { hostOption } from '../config/option-rules'
import { loadSpoolModule, type SpoolModuleType } from '../durability/spool-load'
import type { SpoolFs } from '../durability/spool/index'
import { parseSpoolArgs, SPOOL_USAGE, type SpoolCommandOptions } from './spool-args'
import { exportRecords } from './spool-export'
import { planPurge, type PurgePlan } from './spool-plan'
import { buildReport, damageOf, renderInspect, renderVerify } from './spool-report'

/** The process's streams, as `eventrail spool` uses them. */
export interface SpoolCommandIo {
  readonly stdout: Writable
  readonly stderr: Writable
  readonly stdin: Readable & { readonly isTTY?: boolean }
  /** Tests only: a file system other than `node:fs`. */
  readonly fs?: SpoolFs
}

const count = (n: number): string => n.toLocaleString('en-US')
const plural = (n: number, noun: string): string => `${count(n)} ${noun}${n === 1 ? '' : 's'}`

/**
 * `eventrail spool inspect|verify|export|purge DIR`: looks after a disk spool. Resolves with the
 * exit status: 0 done (verify: every record whole), 1 verify found damage (or purge was declined,
 * or left something), 2 a usage error or a directory that cannot be read or trusted.
 */
export async function runSpoolCommand(argv: readonly string[], io: SpoolCommandIo): Promise<number> {
  const args = parseSpoolArgs(argv)
  if (args.command === 'help') {
    io.stdout.write(SPOOL_USAGE)
    return 0
  }
  if (args.command === 'error') {
    io.stderr.write(`eventrail spool: ${args.message}\n\n${SPOOL_USAGE}`)
    return 2
  }
  const o = args.options
  try {
    // The spool's own code, as a client loads it: its readers, trust checks and file format.
    const spool = loadSpoolModule()
    return await run(o, spool, io.fs ?? spool.realFs, io)
  } catch (err) {
    // A directory that is not there, not a directory, or that a client would not trust (its
    // message says what to do: chmod 700, or a directory of your own).
    io.stderr.write(`eventrail spool ${o.action}: ${String((err as Error)?.message ?? err)}\n`)
    return 2
  }
}

async function run(o: SpoolCommandOptions, spool: SpoolModuleType, fs: SpoolFs, io: SpoolCommandIo): Promise<number> {
  if (o.action === 'export') return exportCommand(o, spool, fs, io)
  const report = buildReport(spool, fs, o.dir)
  if (o.action === 'inspect') {
    io.stdout.write(o.json ? `${JSON.stringify(report)}\n` : renderInspect(report))
    return 0
  }
  if (o.action === 'verify') {
    const damage = damageOf(report)
    io.stdout.write(o.json ? `${JSON.stringify({ dir: o.dir, clean: damage.length === 0, damage, totals: report.totals })}\n` : renderVerify(report, damage))
    return damage.length === 0 ? 0 : 1
  }
  const plan = planPurge(report, o.rejected)
  for (const kept of plan.kept) io.stderr.write(`eventrail spool purge: left alone: ${kept}\n`)
  if (plan.parts.length === 0 && plan.files.length === 0) {
    io.stdout.write(`Nothing to purge in ${o.dir}.\n`)
    return 0
  }
  const what = describePlan(plan, o.dir)
  if (!o.yes) {
    if (io.stdin.isTTY !== true) {
      io.stderr.write(`eventrail spool purge: would delete ${what}; standard input is not a terminal to ask: add --yes to delete\n`)
      return 2
    }
    if (!(await confirm(io, `Delete ${what}? This cannot be undone. [y/N] `))) {
      io.stdout.write('Nothing deleted.\n')
      return 1
    }
  }
  const left = spool.purge(fs, o.dir, plan)
  for (const line of left) io.stderr.write(`eventrail spool purge: not deleted: ${line}\n`)
  io.stdout.write(`Deleted ${what}${left.length > 0 ? `, but for ${left.length}` : ''}.\n`)
  return left.length === 0 ? 0 : 1
}

function describePlan(plan: PurgePlan, dir: string): string {
  if (plan.files.length > 0) return `${plural(plan.records, 'dead letter')} (${plan.files.join(', ')}; ${count(plan.bytes)} bytes) in ${dir}`
  const parts = plan.parts.length === 1 ? `1 part (${plan.parts[0]})` : `${plan.parts.length} parts`
  return `${plural(plan.records, 'waiting record')}, ${count(plan.bytes)} bytes, in ${parts} of ${dir} whose client is gone`
}

// One line from the terminal: "y" or "yes" (any case) agrees; anything else, or its end, does not.
function confirm(io: SpoolCommandIo, question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: false })
    let answered = false
    rl.once('line', (line) => {
      answered = true
      rl.close()
      resolve(/^\s*y(es)?\s*$/i.test(line))
    })
    rl.once('close', () => {
      if (!answered) resolve(false)
    })
    io.stdout.write(question)
  })
}

async function exportCommand(o: SpoolCommandOptions, spool: SpoolModuleType, fs: SpoolFs, io: SpoolCommandIo): Promise<number> {
  const tenant = o.writeKey === undefined ? undefined : spool.tenantOf(o.writeKey, hostOption(o.host))
  const counted = await exportRecords(spool, fs, o.dir, io.stdout, { tenant, rejected: o.rejected })
  const what = o.rejected ? 'dead letters' : 'waiting records'
  io.stderr.write(`eventrail spool export: ${count(counted.records)} ${what} written from ${o.dir} (nothing was deleted)\n`)
  if (counted.ofLiveClients > 0)
    io.stderr.write(
      `eventrail spool export: ${count(counted.ofLiveClients)} of them belong to a client that is alive (or on another host): it may send them too, with the same messageId, which the service de-duplicates\n`,
    )
  if (counted.tenants.size > 1)
    io.stderr.write(
      `eventrail spool export: they were accepted under ${counted.tenants.size} write keys or hosts: import each with its own key (--write-key KEY [--host URL] picks one)\n`,
    )
  return 0
}
