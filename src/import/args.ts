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
  readonly rate: number | undefined
  readonly dryRun: boolean
  readonly strict: boolean
  readonly json: boolean
  /** Seconds between two progress lines off a terminal. */
  readonly progressInterval: number
  readonly maxPending: number | undefined
}

/** The arguments read: options, a request for help, or a usage error naming the flag. */
export type ImportArgs =
  | { readonly command: 'import'; readonly options: ImportCommandOptions }
  | { readonly command: 'help' }
  | { readonly command: 'error'; readonly message: string }

/** The help text of `eventrail import`. */
export const IMPORT_USAGE = `Usage: eventrail import FILE --write-key KEY [options]

Imports historical data: one message a line (JSON lines, with a "type" field:
identify, track, page, screen, group or alias), through the client's own
validation, batching and retries. FILE may be "-" (standard input) or end in
.gz; a file written by "eventrail dev --out" imports as it is.

Options:
  --write-key KEY          the source's write key (not needed with --dry-run)
  --host URL               the service (default https://api.segment.io)
  --report FILE            write every refused or failed line, with its number
                           and the reason, to FILE (JSON lines)
  --checkpoint FILE        where the checkpoint goes (default FILE.checkpoint;
                           standard input has none unless given)
  --resume                 continue after the line the checkpoint records
  --rate N                 send at most N messages a second
  --dry-run                validate and count, send nothing
  --strict                 stop at the first refused line
  --json                   print progress and the summary as JSON lines
  --progress-interval S    seconds between progress lines off a terminal
                           (default 5)
  --max-pending N          messages waiting for their outcome before reading
                           pauses (default 10000)
  -h, --help               show this help

Exit status: 0 every line sent, 1 some lines refused or failed, 2 usage
error, 130 interrupted (Ctrl+C), 143 stopped by SIGTERM (either way what is in
flight finishes and the checkpoint is written).
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
        rate: { type: 'string' },
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
  const rate = positiveNumber(values.rate, '--rate', false)
  const interval = positiveNumber(values['progress-interval'], '--progress-interval', false)
  const maxPending = positiveNumber(values['max-pending'], '--max-pending', true)
  for (const result of [rate, interval, maxPending]) if (typeof result === 'string') return { command: 'error', message: result }
  const resume = values.resume === true
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
      rate: rate as number | undefined,
      dryRun,
      strict: values.strict === true,
      json: values.json === true,
      progressInterval: (interval as number | undefined) ?? 5,
      maxPending: maxPending as number | undefined,
    },
  }
}

// The number, undefined when the flag is absent, or the usage error naming the flag.
function positiveNumber(text: string | undefined, flag: string, integer: boolean): number | undefined | string {
  if (text === undefined) return undefined
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    return `${flag} must be ${integer ? 'an integer' : 'a number'} greater than 0 (got "${text}")`
  }
  return value
}
