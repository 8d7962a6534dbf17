import type { ImportCommandOptions } from './args'
import { nameOf } from './start-plan'
import type { ImportSummary } from './types'

const count = (n: number): string => n.toLocaleString('en-US')

/** What to do next, after the summary: how to resume, and what the counts suggest. */
export function hints(
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

/** The items until the source fails: then they end, and `onError` has the error. */
export async function* untilReadError<T>(items: AsyncIterable<T>, onError: (err: unknown) => void): AsyncGenerator<T> {
  try {
    yield* items
  } catch (err) {
    onError(err)
  }
}

/** Why the input could not be read past a line, naming the file (gzip's own errors said as such). */
export function describeReadError(file: string, lines: number, err: unknown): string {
  const name = nameOf(file)
  const code = (err as { code?: unknown } | null)?.code
  const message = err instanceof Error ? err.message : String(err)
  // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR) say what is wrong with the data, not that it is gzip.
  const reason = typeof code === 'string' && code.startsWith('Z_') ? `not valid gzip data (${message})` : message
  return `${name} could not be read past line ${count(lines)}: ${reason}`
}
