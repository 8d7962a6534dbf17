import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { Analytics } from '../client/analytics'
import { preloadDefaultFetch } from '../platform/transport'
import { ValidationError } from '../core/errors'
import { IMPORT_USAGE, parseImportArgs, type ImportCommandOptions } from './args'
import {
  CheckpointWriter,
  fileIdentity,
  loadCheckpoint,
  NotACheckpointError,
  probeCheckpointPath,
  type CheckpointRecord,
} from './checkpoint'
import { CheckpointMismatchError, ContentTrail, type ContentMark } from './content-mark'
import { createDisplay, type Output } from './display'
import { runImport } from './engine'
import { openInput, type ImportInput } from './input'
import { readLines } from './line-reader'
import { IMPORT_RSS_BUDGET_BYTES, keepMemoryNear } from './memory-budget'
import { findOutputClash, type OutputFile } from './outputs'
import { inputPosition, type SummaryNotes } from './render'
import { IssueReport } from './report'
import type { RecordFilter } from './to-message'
import type { ImportSummary } from './types'
import { Watermark } from './watermark'

/** The process's streams, as the command uses them. */
export interface CommandIo {
  readonly stdout: Output
  readonly stderr: Output
  readonly stdin: Readable
}

/** Messages a request may carry when the bytes allow: 1000 of ~500 bytes fill a 500 KB request. */
export const IMPORT_FLUSH_AT = 1000
/** The client's timed flush, short: what is read goes out at once even when fewer than `flushAt` are queued. */
export const IMPORT_FLUSH_INTERVAL_MS = 50
/** After Ctrl+C, how long the messages in flight may take to get their outcome. */
export const INTERRUPT_DRAIN_MS = 30_000

const count = (n: number): string => n.toLocaleString('en-US')

/** A refusal before anything is sent: the message, and whether the usage text should follow it. */
class Refusal extends Error {
  readonly withUsage: boolean
  constructor(message: string, withUsage = false) {
    super(message)
    this.withUsage = withUsage
  }
}

/** Where an import starts: after the checkpoint's line (`--resume`), or at line 1. */
interface StartPlan {
  readonly start: number
  /** The checkpoint resumed from: its line and mark, checked as the input is read. */
  readonly expected?: { readonly line: number; readonly mark: ContentMark }
  readonly record?: CheckpointRecord
  /** A notice to show before the import starts. */
  readonly notice?: string
}

/**
 * `eventrail import FILE …`: reads the file, imports it through a client, shows progress, writes
 * the report and the checkpoint. Resolves with the exit status: 0 every line sent, 1 some refused
 * or failed (or the checkpoint or the report could not be written, or the service was down and
 * the outage breaker stopped the import), 2 a usage error (or a
 * checkpoint that stops it), 130 interrupted (Ctrl+C), 143 stopped by SIGTERM.
 */
export async function runImportCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const args = parseImportArgs(argv)
  if (args.command === 'help') {
    io.stdout.write(IMPORT_USAGE)
    return 0
  }
  const refuse = (message: string, withUsage: boolean): number => {
    io.stderr.write(`eventrail import: ${message}\n${withUsage ? `\n${IMPORT_USAGE}` : ''}`)
    return 2
  }
  if (args.command === 'error') return refuse(args.message, true)
  const o = args.options
  let analytics: Analytics
  try {
    analytics = new Analytics(o.writeKey, {
      ...(o.host !== undefined ? { host: o.host } : {}),
      ...(o.maxRequestsPerSecond !== undefined ? { maxRequestsPerSecond: o.maxRequestsPerSecond } : {}),
      flushAt: IMPORT_FLUSH_AT,
      flushInterval: IMPORT_FLUSH_INTERVAL_MS,
      enable: !o.dryRun,
      // Every message's own callback has its outcome; this keeps failed requests from being thrown.
      errorHandler: () => {},
    })
  } catch (err) {
    if (err instanceof ValidationError) return refuse(`--${err.field === 'writeKey' ? 'write-key' : err.field} ${err.rule}`, true)
    throw err
  }
  let input: ImportInput
  let plan: StartPlan
  let report: IssueReport
  try {
    // Nothing is opened for writing before every check has passed.
    const outputs: OutputFile[] = [
      ...(o.report !== undefined ? [{ flag: '--report', path: o.report }] : []),
      ...(o.checkpoint !== undefined && !o.dryRun ? [{ flag: '--checkpoint', path: o.checkpoint }] : []),
    ]
    const clash = await findOutputClash(o.file, outputs, io.stdin === process.stdin ? 0 : undefined)
    if (clash !== undefined) throw new Refusal(clash)
    plan = await planStart(o)
    if (o.checkpoint !== undefined && !o.dryRun) {
      await probeCheckpointPath(o.checkpoint).catch((err: unknown) => {
        const given = o.checkpoint === `${o.file}.checkpoint` ? `the checkpoint ${o.checkpoint}` : `--checkpoint ${o.checkpoint}`
        throw new Refusal(
          `${given} cannot be written (${err instanceof Error ? err.message : String(err)}): give --checkpoint FILE elsewhere`,
        )
      })
    }
    input = await openInput(o.file, io.stdin).catch((err: unknown) => {
      throw new Refusal(err instanceof Error ? err.message : String(err))
    })
    if (plan.expected !== undefined && input.size !== undefined && !o.file.endsWith('.gz') && input.size < plan.expected.mark.offset) {
      throw new Refusal(
        mismatch(
          o,
          plan.record!,
          `it is ${count(input.size)} bytes, and line ${count(plan.start)} ended at byte ${count(plan.expected.mark.offset)}`,
        ),
      )
    }
    report = await IssueReport.open(o.report, plan.start > 0, io.stderr).catch((err: unknown) => {
      throw new Refusal(`--report ${o.report} cannot be written (${err instanceof Error ? err.message : String(err)})`)
    })
  } catch (err) {
    if (err instanceof Refusal) return refuse(err.message, err.withUsage)
    throw err
  }
  // The sending code (~25 ms to load) is ready before the import, and its time and rate, start.
  if (!o.dryRun) await preloadDefaultFetch()
  return importFile(analytics, input, report, plan, o, io)
}

function nameOf(file: string): string {
  return file === '-' ? 'standard input' : file
}

/**
 * Decides where the import starts, from the checkpoint (when there is one): after its line with
 * `--resume`, at line 1 with `--restart`; an existing checkpoint without either stops the command,
 * so that running it again by mistake neither sends everything again nor loses the checkpoint.
 */
async function planStart(o: ImportCommandOptions): Promise<StartPlan> {
  const path = o.checkpoint
  if (path === undefined || (o.dryRun && !o.resume)) return { start: 0 }
  let record: CheckpointRecord | undefined
  try {
    record = await loadCheckpoint(path)
  } catch (err) {
    if (err instanceof NotACheckpointError)
      throw new Refusal(`${err.message}: give --checkpoint FILE another path (that file is left as it is)`)
    throw new Refusal(`the checkpoint ${path} cannot be read (${err instanceof Error ? err.message : String(err)})`)
  }
  const name = nameOf(o.file)
  if (record === undefined) {
    return o.resume ? { start: 0, notice: `No checkpoint at ${path}: starting at line 1` } : { start: 0 }
  }
  if (o.restart) return { start: 0, notice: `Starting again at line 1 (--restart): ${path} will be replaced` }
  const when = record.updatedAt ? `, written ${record.updatedAt}` : ''
  const isOwn = record.file === (await fileIdentity(o.file))
  if (!isOwn) {
    throw new Refusal(
      `${path} is the checkpoint of ${record.file}, not of ${o.file}: give --checkpoint FILE for this one, or add --restart to replace it`,
    )
  }
  if (!o.resume) {
    const line = count(record.line)
    throw new Refusal(
      record.complete === true
        ? `${name} was imported in full already (checkpoint ${path}: line ${line}${when}). Add --restart to import it again from line 1, or --resume to send only the lines added since`
        : `an import of ${name} stopped after line ${line} (checkpoint ${path}${when}). Add --resume to continue after line ${line}, or --restart to import it again from line 1 (the checkpoint is then replaced)`,
    )
  }
  if (record.content === undefined || !isMark(record.content)) {
    throw new Refusal(
      `${path} does not record what identifies the content of ${name} (an older eventrail wrote it), so resuming from it could skip lines that were never sent. Add --restart to import it again from line 1`,
    )
  }
  return { start: record.line, expected: { line: record.line, mark: record.content }, record }
}

function isMark(value: unknown): value is ContentMark {
  const m = value as Partial<ContentMark> | null
  const isDigest = (d: unknown): boolean =>
    typeof d === 'object' &&
    d !== null &&
    typeof (d as { bytes?: unknown }).bytes === 'number' &&
    typeof (d as { sha256?: unknown }).sha256 === 'string'
  return typeof m === 'object' && m !== null && typeof m.offset === 'number' && isDigest(m.head) && isDigest(m.tail)
}

// Why a checkpoint is not resumed from: how the input differs, what the file was and is, what to do.
function mismatch(o: ImportCommandOptions, record: CheckpointRecord, reason: string, now?: { size?: number; modifiedMs?: number }): string {
  const then =
    record.size !== undefined && now?.size !== undefined
      ? ` (when the checkpoint was written it was ${count(record.size)} bytes, modified ${record.modifiedAt ?? '?'}; it is now ${count(now.size)} bytes, modified ${now.modifiedMs === undefined ? '?' : new Date(now.modifiedMs).toISOString()})`
      : ''
  return (
    `${nameOf(o.file)} is not the input that the checkpoint ${o.checkpoint} was written for: ${reason}${then}. ` +
    `Resuming would skip lines that were never sent. Add --restart to import it from line 1, or give --checkpoint FILE for a new one`
  )
}

async function importFile(
  analytics: Analytics,
  input: ImportInput,
  report: IssueReport,
  plan: StartPlan,
  o: ImportCommandOptions,
  io: CommandIo,
): Promise<number> {
  const start = plan.start
  const watermark = new Watermark(start)
  const usesCheckpoint = o.checkpoint !== undefined && !o.dryRun
  // What identifies the input up to a line: written with every checkpoint, checked on --resume.
  const trail = usesCheckpoint || plan.expected !== undefined ? new ContentTrail(watermark, plan.expected) : undefined
  const counts: { taken: number; skipped: number; lines?: number; ended?: boolean } = { taken: 0, skipped: 0 }
  const done = { bytes: 0 }
  const display = createDisplay(
    io.stdout,
    o.json,
    o.progressInterval,
    (elapsedMs) =>
      inputPosition(
        { size: input.size, read: input.bytesRead(), taken: counts.taken, skipped: counts.skipped, done: done.bytes },
        elapsedMs,
      ),
    o.dryRun,
  )
  const file = await fileIdentity(o.file)
  const facts = {
    file,
    ...(input.size !== undefined ? { size: input.size } : {}),
    ...(input.modifiedMs !== undefined ? { modifiedAt: new Date(input.modifiedMs).toISOString() } : {}),
  }
  const checkpointPath = usesCheckpoint ? o.checkpoint : undefined
  const checkpoint =
    checkpointPath !== undefined && trail !== undefined
      ? new CheckpointWriter(checkpointPath, (line) => {
          const content = trail.mark(line)
          return content === undefined ? undefined : { ...facts, content }
        })
      : undefined
  let isCheckpointReported = false
  const saveCheckpoint = (line: number, complete = false): Promise<void> =>
    checkpoint?.write(line, complete).catch((err: unknown) => {
      // Said once while the import runs; the summary says it again, and the exit status.
      if (isCheckpointReported) return
      isCheckpointReported = true
      display.notice(`eventrail import: cannot write the checkpoint ${o.checkpoint}: ${err instanceof Error ? err.message : String(err)}`)
    }) ?? Promise.resolve()
  const controller = new AbortController()
  let isMismatch = false
  // Ctrl+C, or SIGTERM from a process manager (docker stop, Kubernetes): finish what is in flight,
  // write the checkpoint, exit 128 + the signal's number. A second signal quits at once.
  let interruptStatus = 130
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) {
      void (isMismatch ? Promise.resolve() : saveCheckpoint(watermark.value)).finally(() => process.exit(interruptStatus))
      return
    }
    interruptStatus = signal === 'SIGTERM' ? 143 : 130
    const again = signal === 'SIGTERM' ? 'a second signal quits now' : 'Ctrl+C again to quit now'
    display.notice(`Interrupted: finishing the messages in flight (${again})…`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  // The service is down (the client's outage breaker opened): reading on would only fail line
  // after line. Stop as on Ctrl+C (what is in flight finishes, the checkpoint is written), exit 1.
  let outage: string | undefined
  analytics.on('breaker', (change) => {
    if (change.state !== 'open' || controller.signal.aborted) return
    outage = `${change.error.url ?? ''}: the service is unavailable (last: ${change.error.lastFailure})`
    interruptStatus = 1
    display.notice(`Stopping: ${outage}. The messages in flight finish and the checkpoint is written.`)
    controller.abort()
  })
  const stopMemoryBudget = keepMemoryNear(IMPORT_RSS_BUDGET_BYTES)
  if (plan.notice !== undefined) display.notice(plan.notice)
  if (start > 0) display.notice(`Resuming after line ${count(start)} (${o.checkpoint})`)
  const verdicts = { accepted: 0, dropped: 0 }
  const records: RecordFilter = {
    keep: (verdict) => {
      if (verdict === 'accepted' || verdict === 'dropped') verdicts[verdict] += 1
      return o.verdict === undefined || verdict === o.verdict
    },
    only: o.verdict !== undefined,
  }
  let summary: ImportSummary
  // A read error (a cut or corrupt .gz, a failing disk) ends the input: what was read is finished,
  // the checkpoint written and the summary shown, then the error, naming the file.
  let readError: unknown
  try {
    summary = await runImport(
      untilReadError(readLines(input.chunks, start, { trail, counts }), (err) => {
        readError = err
        isMismatch = err instanceof CheckpointMismatchError
      }),
      analytics,
      {
        firstPosition: start + 1,
        watermark,
        done,
        records,
        signal: controller.signal,
        drainTimeout: INTERRUPT_DRAIN_MS,
        strict: o.strict,
        ...(o.rate !== undefined ? { rate: o.rate } : {}),
        ...(o.maxPending !== undefined ? { maxPending: o.maxPending } : {}),
        progressInterval: display.intervalMs,
        onProgress: (p) => {
          display.show(p)
          if (!isMismatch) void saveCheckpoint(p.watermark)
        },
        onIssue: (issue) => report.add(issue),
      },
    )
  } finally {
    stopMemoryBudget()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    input.close()
  }
  if (isMismatch) {
    // Nothing after the checkpoint's line was handed over; the checkpoint stays as it was.
    await report.close().catch(() => {})
    await analytics.closeAndFlush({ timeout: 0 }).catch(() => {})
    const now = await stat(o.file).catch(() => undefined)
    io.stderr.write(
      `eventrail import: ${mismatch(o, plan.record!, (readError as CheckpointMismatchError).reason, now && { size: now.size, modifiedMs: now.mtimeMs })}\n`,
    )
    return 2
  }
  // The end of the input, with every line's outcome: the import is complete (a later run says so).
  const lines = start + summary.read
  const complete = counts.ended === true && readError === undefined && !summary.aborted && summary.watermark === counts.lines
  await saveCheckpoint(summary.watermark, complete)
  let reportError: string | undefined
  await report.close().catch((err: unknown) => (reportError = err instanceof Error ? err.message : String(err)))
  const checkpointError = checkpoint?.error === undefined ? undefined : checkpoint.error.message
  // The checkpoint on disk: the last this run wrote, or the one it resumed from (stopped before
  // passing its line, this run wrote none, and that one still holds).
  const checkpointLine = checkpoint === undefined ? undefined : (checkpoint.writtenLine ?? (start > 0 ? start : undefined))
  const notes: SummaryNotes = {
    report: o.report,
    reportError,
    checkpoint: checkpoint ? o.checkpoint : undefined,
    checkpointLine,
    checkpointError,
    dryRun: o.dryRun,
    skippedNote: o.verdict === undefined ? 'blank lines' : `blank lines, and records not ${o.verdict}`,
  }
  display.finish(summary, notes, {
    ...(checkpoint ? { checkpoint: { path: o.checkpoint, line: checkpointLine ?? null, error: checkpointError ?? null } } : {}),
    ...(o.report !== undefined ? { report: { path: o.report, error: reportError ?? null } } : {}),
  })
  if (readError !== undefined) io.stderr.write(`eventrail import: ${describeReadError(o.file, lines, readError)}\n`)
  for (const hint of hints(o, summary, { checkpointLine, verdicts, readError, outage })) {
    display.notice(hint)
  }
  const grown =
    input.size === undefined
      ? undefined
      : await stat(o.file).then(
          (s) => s.size - input.size!,
          () => undefined,
        )
  if (grown !== undefined && grown > 0 && readError === undefined && !summary.aborted) {
    display.notice(
      `${o.file} grew by ${count(grown)} bytes during the import: only the ${count(input.size!)} bytes it had at the start were read.`,
    )
  }
  // Whatever is still in flight after an interrupt is abandoned: --resume sends it again.
  await analytics.closeAndFlush(summary.abandoned > 0 ? { timeout: 0 } : {}).catch(() => {})
  if (summary.aborted) return interruptStatus
  const isIncomplete = readError !== undefined || summary.refused > 0 || summary.failed > 0 || summary.abandoned > 0
  return isIncomplete || checkpointError !== undefined || reportError !== undefined ? 1 : 0
}

// What to do next, after the summary: how to resume, and what the counts suggest.
function hints(
  o: ImportCommandOptions,
  s: ImportSummary,
  state: {
    checkpointLine: number | undefined
    verdicts: { accepted: number; dropped: number }
    readError: unknown
    /** Why the service was found down, when the outage breaker stopped the import. */
    outage?: string | undefined
  },
): string[] {
  const out: string[] = []
  const canResume = state.checkpointLine !== undefined
  const next = count(state.checkpointLine === undefined ? s.watermark + 1 : state.checkpointLine + 1)
  if (s.aborted || s.abandoned > 0 || s.failed > 0 || s.stoppedAt !== undefined || state.readError !== undefined) {
    if (o.dryRun) {
      // A dry run writes no checkpoint.
    } else if (!canResume) {
      out.push(
        o.checkpoint === undefined
          ? 'Standard input has no checkpoint: to be able to resume, give --checkpoint FILE.'
          : `The checkpoint could not be written: --resume cannot continue from here.`,
      )
    } else if (state.outage !== undefined) {
      out.push(`The service is unavailable. Once it is reachable, run the same command with --resume to continue from line ${next}.`)
    } else if (s.aborted) {
      out.push(`Stopped. To continue from line ${next}, run the same command with --resume.`)
    } else if (s.stoppedAt !== undefined) {
      out.push(`Stopped at line ${count(s.stoppedAt)} (refused, --strict): correct it, then run the same command with --resume.`)
    } else if (s.failed > 0 || s.abandoned > 0) {
      out.push(
        `Some lines were not delivered: once the service is reachable, run the same command with --resume to send again from line ${next}.`,
      )
    } else {
      out.push(`Once the file can be read in full, run the same command with --resume to continue from line ${next}.`)
    }
  }
  if (o.verdict === undefined && state.verdicts.dropped > 0) {
    out.push(
      `${count(state.verdicts.dropped)} of the records were dropped by the collector when it received them, and were imported too: add --verdict accepted to import only the accepted ones.`,
    )
  }
  return out
}

// The items until the source fails: then they end, and `onError` has the error.
async function* untilReadError<T>(items: AsyncIterable<T>, onError: (err: unknown) => void): AsyncGenerator<T> {
  try {
    yield* items
  } catch (err) {
    onError(err)
  }
}

function describeReadError(file: string, lines: number, err: unknown): string {
  const name = nameOf(file)
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR) say what is wrong with the data, not that it is gzip.
  const reason = typeof code === 'string' && code.startsWith('Z_') ? `not valid gzip data (${message})` : message
  return `${name} could not be read past line ${count(lines)}: ${reason}`
}
