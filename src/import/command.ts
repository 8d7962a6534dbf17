import type { Readable } from 'node:stream'
import { Analytics } from '../analytics'
import { preloadDefaultFetch } from '../delivery/transport'
import { ValidationError } from '../errors'
import { IMPORT_USAGE, parseImportArgs, type ImportCommandOptions } from './args'
import { CheckpointWriter, fileIdentity, readCheckpoint } from './checkpoint'
import { createDisplay, type Output } from './display'
import { runImport } from './engine'
import { openInput, type ImportInput } from './input'
import { readLines } from './line-reader'
import { IMPORT_RSS_BUDGET_BYTES, keepMemoryNear } from './memory-budget'
import { IssueReport } from './report'
import type { ImportSummary } from './types'

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

/**
 * `eventrail import FILE …`: reads the file, imports it through a client, shows progress, writes
 * the report and the checkpoint. Resolves with the exit status: 0 every line sent, 1 some refused
 * or failed, 2 a usage error, 130 interrupted (Ctrl+C), 143 stopped by SIGTERM.
 */
export async function runImportCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const args = parseImportArgs(argv)
  if (args.command === 'help') {
    io.stdout.write(IMPORT_USAGE)
    return 0
  }
  const usageError = (message: string): number => {
    io.stderr.write(`eventrail import: ${message}\n\n${IMPORT_USAGE}`)
    return 2
  }
  if (args.command === 'error') return usageError(args.message)
  const o = args.options
  let analytics: Analytics
  try {
    analytics = new Analytics(o.writeKey, {
      ...(o.host !== undefined ? { host: o.host } : {}),
      flushAt: IMPORT_FLUSH_AT,
      flushInterval: IMPORT_FLUSH_INTERVAL_MS,
      enable: !o.dryRun,
      // Every message's own callback has its outcome; this keeps failed requests from being thrown.
      errorHandler: () => {},
    })
  } catch (err) {
    if (err instanceof ValidationError) return usageError(`--${err.field === 'writeKey' ? 'write-key' : err.field} ${err.rule}`)
    throw err
  }
  let input: ImportInput
  let start: number
  let report: IssueReport
  try {
    start = o.resume && o.checkpoint !== undefined ? await readCheckpoint(o.checkpoint, o.file) : 0
    input = await openInput(o.file, io.stdin)
    report = await IssueReport.open(o.report, o.resume, io.stderr)
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err))
  }
  // The sending code (~25 ms to load) is ready before the import, and its time and rate, start.
  if (!o.dryRun) await preloadDefaultFetch()
  return importFile(analytics, input, report, start, o, io)
}

async function importFile(
  analytics: Analytics,
  input: ImportInput,
  report: IssueReport,
  start: number,
  o: ImportCommandOptions,
  io: CommandIo,
): Promise<number> {
  const display = createDisplay(io.stdout, o.json, o.progressInterval, () => ({ bytesRead: input.bytesRead(), size: input.size }))
  const checkpoint = o.checkpoint !== undefined && !o.dryRun ? new CheckpointWriter(o.checkpoint, await fileIdentity(o.file)) : undefined
  const saveCheckpoint = (line: number): Promise<void> =>
    checkpoint?.write(line).catch((err: unknown) => display.notice(`eventrail import: cannot write the checkpoint: ${String(err)}`)) ??
    Promise.resolve()
  let watermark = start
  const controller = new AbortController()
  // Ctrl+C, or SIGTERM from a process manager (docker stop, Kubernetes): finish what is in flight,
  // write the checkpoint, exit 128 + the signal's number. A second signal quits at once.
  let interruptStatus = 130
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) {
      void saveCheckpoint(watermark).finally(() => process.exit(interruptStatus))
      return
    }
    interruptStatus = signal === 'SIGTERM' ? 143 : 130
    const again = signal === 'SIGTERM' ? 'a second signal quits now' : 'Ctrl+C again to quit now'
    display.notice(`Interrupted: finishing the messages in flight (${again})…`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const stopMemoryBudget = keepMemoryNear(IMPORT_RSS_BUDGET_BYTES)
  if (start > 0) display.notice(`Resuming after line ${start.toLocaleString('en-US')} (${o.checkpoint})`)
  let summary: ImportSummary
  // A read error (a cut or corrupt .gz, a failing disk) ends the input: what was read is finished,
  // the checkpoint written and the summary shown, then the error, naming the file.
  let readError: unknown
  try {
    summary = await runImport(
      untilReadError(readLines(input.chunks, start), (err) => (readError = err)),
      analytics,
      {
        firstPosition: start + 1,
        signal: controller.signal,
        drainTimeout: INTERRUPT_DRAIN_MS,
        strict: o.strict,
        ...(o.rate !== undefined ? { rate: o.rate } : {}),
        ...(o.maxPending !== undefined ? { maxPending: o.maxPending } : {}),
        progressInterval: display.intervalMs,
        onProgress: (p) => {
          watermark = p.watermark
          display.show(p)
          void saveCheckpoint(p.watermark)
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
  await saveCheckpoint(summary.watermark)
  await report.close()
  display.finish(summary, { report: o.report, checkpoint: checkpoint ? o.checkpoint : undefined, dryRun: o.dryRun })
  if (readError !== undefined) io.stderr.write(`eventrail import: ${describeReadError(o.file, summary.read + start, readError)}\n`)
  // Whatever is still in flight after an interrupt is abandoned: --resume sends it again.
  await analytics.closeAndFlush(summary.abandoned > 0 ? { timeout: 0 } : {}).catch(() => {})
  if (summary.aborted) return interruptStatus
  return readError !== undefined || summary.refused > 0 || summary.failed > 0 || summary.abandoned > 0 ? 1 : 0
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
  const name = file === '-' ? 'standard input' : file
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR) say what is wrong with the data, not that it is gzip.
  const reason = typeof code === 'string' && code.startsWith('Z_') ? `not valid gzip data (${message})` : message
  return `${name} could not be read past line ${lines.toLocaleString('en-US')}: ${reason}`
}
