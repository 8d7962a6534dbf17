import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { Analytics } from '../client/analytics'
import { preloadDefaultFetch } from '../platform/transport'
import { ValidationError } from '../core/errors'
import { IMPORT_USAGE, parseImportArgs, type ImportCommandOptions } from './args'
import { CheckpointWriter, fileIdentity, probeCheckpointPath } from './checkpoint'
import { CheckpointMismatchError, ContentTrail } from './content-mark'
import { createDisplay, type Output } from './display'
import { runImport } from './engine'
import { openInput, type ImportInput } from './input'
import { readLines } from './line-reader'
import { IMPORT_RSS_BUDGET_BYTES, keepMemoryNear } from './memory-budget'
import { findOutputClash, type OutputFile } from './outputs'
import { counted, inputPosition, type SummaryNotes } from './render'
import { IssueReport } from './report'
import type { RecordFilter } from './to-message'
import type { ImportSummary } from './types'
import { Watermark } from './watermark'
import { mismatch, planStart, Refusal, type StartPlan } from './start-plan'
import { describeReadError, hints, untilReadError } from './command-notes'

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
  // The service is down (the client's outage breaker opened, on every host): reading on would only
  // fail line after line. Stop as on Ctrl+C (what is in flight finishes, the checkpoint is written), exit 1.
  let outage: string | undefined
  analytics.on('breaker', (change) => {
    if (change.state !== 'open' || change.activeHost !== undefined || controller.signal.aborted) return
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
          report.release(watermark.settled)
          display.show(p)
          if (!isMismatch) void saveCheckpoint(p.watermark)
        },
        onIssue: (issue) => {
          report.add(issue)
          report.release(watermark.settled)
        },
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
      `${o.file} grew by ${counted(grown, 'byte')} during the import: only the ${counted(input.size!, 'byte')} it had at the start were read.`,
    )
  }
  // Whatever is still in flight after an interrupt is abandoned: --resume sends it again.
  await analytics.closeAndFlush(summary.abandoned > 0 ? { timeout: 0 } : {}).catch(() => {})
  if (summary.aborted) return interruptStatus
  const isIncomplete = readError !== undefined || summary.refused > 0 || summary.failed > 0 || summary.abandoned > 0
  return isIncomplete || checkpointError !== undefined || reportError !== undefined ? 1 : 0
}
