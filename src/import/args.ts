import { parseArgs } from 'node:util'

/** What `eventrail import` was asked to do. */
export interface ImportCommandOptions {
  readonly file: string
  readonly writeKey: string
  readonly host: string | undefined
  readonly report: string | undefined
  /** The checkpoint file; undefined for standard input without `--checkpoint`. */
  readonly checkpoint: string | undefined
  readonly resume: boolean
  /** Start from line 1 even though a checkpoint exists (it is replaced). */
  readonly restart: boolean
  readonly rate: number | undefined
  readonly dryRun: boolean
  readonly strict: boolean
  readonly json: boolean
  /** Seconds between two progress lines off a terminal. */
  readonly progressInterval: number
  readonly maxPending: number | undefined
  /** The client's cap on requests a second (each alias is a request of its own). */
  readonly maxRequestsPerSecond: number | undefined
  /** Records of `eventrail dev --out`: only those with this verdict are imported. */
  readonly verdict: 'accepted' | 'dropped' | undefined
}

/** The arguments read: options, a request for help, or a usage error naming the flag. */
export type ImportArgs =
  | { readonly command: 'import'; readonly options: ImportCommandOptions }
  | { readonly command: 'help' }
  | { readonly command: 'error'; readonly message: string }

/** Most messages waiting for their outcome: the client's queue holds 500,000. */
export const MAX_PENDING_LIMIT = 500_000

/** The help text of `eventrail import`. */
export const IMPORT_USAGE = `Usage: eventrail import FILE --write-key KEY [options]

Sends historical data to the service: one message a line (JSON lines, with a
"type" field: identify, track, page, screen, group or alias), through the
client's own validation, batching and retries. FILE may be "-" (standard
input) or end in .gz; a file written by "eventrail dev --out" imports as it
is. A file is read up to the size it had when the import started.

Examples:
  eventrail import events.jsonl --write-key KEY --report refused.jsonl
  eventrail import events.jsonl --write-key KEY --resume    (after Ctrl+C)
  gunzip -c export.gz | eventrail import - --write-key KEY
  eventrail import captured.jsonl --write-key KEY --verdict accepted

Options:
  --write-key KEY          the source's write key (not needed with --dry-run)
  --host URL               the service (default https://api.segment.io)
  --report FILE            write every refused or failed line, with its number
                           and the reason, to FILE (JSON lines)
  --checkpoint FILE        where the checkpoint goes (default FILE.checkpoint;
                           standard input has none unless given)
  --resume                 continue after the line the checkpoint records (it
                           is refused if the file's content is not the same
                           up to that line)
  --restart                import from line 1 although a checkpoint exists
                           (it is replaced). Without --resume or --restart,
                           an existing checkpoint stops the command
  --verdict V              for a file of "eventrail dev --out": import only the
                           records the collector gave this verdict (accepted
                           or dropped); other lines are refused
  --rate N                 send at most N messages a second (at least 0.01)
  --max-requests-per-second N
                           the client's cap on requests a second (default 500,
                           what the service recommends). Each alias goes in a
                           request of its own, so a file with many aliases
                           goes at about this many aliases a second: raise it
                           if your plan allows
  --dry-run                validate and count, send nothing ("would send")
  --strict                 stop at the first refused line
  --json                   print progress and the summary as JSON lines
  --progress-interval S    seconds between progress lines off a terminal
                           (default 5; 0.001 to 86400)
  --max-pending N          messages waiting for their outcome before reading
                           pauses (default 10000; 1 to ${MAX_PENDING_LIMIT.toLocaleString('en-US')})
  -h, --help               show this help

Exit status: 0 every line sent (or skipped: blank lines, --verdict), 1 some
lines refused or failed, or the checkpoint or the report could not be
written, 2 usage error (a checkpoint that exists without --resume or
--restart, or that does not match FILE, included), 130 interrupted (Ctrl+C),
143 stopped by SIGTERM (either way what is in flight finishes and the
checkpoint is written: --resume continues).
`

/** Reads the arguments of `eventrail import` (after the word `import`). Pure. */
export function parseImportArgs(argv: readonly string[]): ImportArgs {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'write-key': { type: 'string' },
        host: { type: 'string' },
        report: { type: 'string' },
        checkpoint: { type: 'string' },
        resume: { type: 'boolean' },
        restart: { type: 'boolean' },
        verdict: { type: 'string' },
        rate: { type: 'string' },
        'max-requests-per-second': { type: 'string' },
        'dry-run': { type: 'boolean' },
        strict: { type: 'boolean' },
        json: { type: 'boolean' },
        'progress-interval': { type: 'string' },
        'max-pending': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (err) {
    return { command: 'error', message: err instanceof Error ? err.message : String(err) }
  }
  const { values, positionals } = parsed
  if (values.help === true) return { command: 'help' }
  if (positionals.length !== 1) {
    const message =
      positionals.length === 0
        ? 'FILE is required: a JSON-lines file, a .gz file or - for standard input'
        : `one FILE only (got ${positionals.length})`
    return { command: 'error', message }
  }
  const file = positionals[0]
  const dryRun = values['dry-run'] === true
  const writeKey = values['write-key']
  if (!dryRun && (writeKey === undefined || writeKey.trim() === ''))
    return { command: 'error', message: "--write-key is required (the source's write key)" }
  const numbers = {
    rate: numberFlag(values.rate, '--rate', { min: 0.01, unit: 'messages a second' }),
    interval: numberFlag(values['progress-interval'], '--progress-interval', { min: 0.001, max: 86_400, unit: 'seconds' }),
    maxPending: numberFlag(values['max-pending'], '--max-pending', { min: 1, max: MAX_PENDING_LIMIT, integer: true }),
    requests: numberFlag(values['max-requests-per-second'], '--max-requests-per-second', { min: 1, unit: 'requests a second' }),
  }
  for (const result of Object.values(numbers)) if (typeof result === 'string') return { command: 'error', message: result }
  const verdict = values.verdict
  if (verdict !== undefined && verdict !== 'accepted' && verdict !== 'dropped') {
    return { command: 'error', message: `--verdict must be accepted or dropped (got "${verdict}")` }
  }
  const resume = values.resume === true
  const restart = values.restart === true
  if (resume && restart) {
    return {
      command: 'error',
      message: '--resume and --restart do not go together: --resume continues after the checkpoint, --restart starts again from line 1',
    }
  }
  const checkpoint = values.checkpoint ?? (file === '-' ? undefined : `${file}.checkpoint`)
  if (resume && checkpoint === undefined) return { command: 'error', message: '--resume with standard input needs --checkpoint FILE' }
  return {
    command: 'import',
    options: {
      file,
      writeKey: writeKey ?? 'dry-run',
      host: values.host,
      report: values.report,
      checkpoint,
      resume,
      restart,
      rate: numbers.rate as number | undefined,
      dryRun,
      strict: values.strict === true,
      json: values.json === true,
      progressInterval: (numbers.interval as number | undefined) ?? 5,
      maxPending: numbers.maxPending as number | undefined,
      maxRequestsPerSecond: numbers.requests as number | undefined,
      verdict,
    },
  }
}

interface NumberRule {
  readonly min: number
  readonly max?: number
  readonly integer?: boolean
  /** What the number counts, for the message. */
  readonly unit?: string
}

// A plain decimal number (an exponent allowed): no hex, no blanks, no "Infinity".
const NUMBER = /^(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

// The number, undefined when the flag is absent, or the usage error naming the flag and its rule.
function numberFlag(text: string | undefined, flag: string, rule: NumberRule): number | undefined | string {
  if (text === undefined) return undefined
  const value = NUMBER.test(text) ? Number(text) : NaN
  const isValid =
    Number.isFinite(value) &&
    value >= rule.min &&
    (rule.max === undefined || value <= rule.max) &&
    (rule.integer !== true || Number.isInteger(value))
  if (isValid) return value
  const what = rule.integer === true ? 'a whole number' : `a number${rule.unit ? ` of ${rule.unit}` : ''}`
  const range = rule.max === undefined ? `at least ${format(rule.min)}` : `from ${format(rule.min)} to ${format(rule.max)}`
  return `${flag} must be ${what}, ${range} (got "${text}")`
}

const format = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 3 })
