import { parseArgs } from 'node:util'
import type { CollectorOptions } from './types'

/** The port `eventrail dev` listens on unless told otherwise. */
export const DEV_DEFAULT_PORT = 4040

/** What the command line asks for. */
export type CliCommand =
  | { readonly command: 'dev'; readonly options: CollectorOptions; readonly quiet: boolean; readonly planFile?: string }
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'error'; readonly message: string }

/** The help text of the `eventrail` command. */
export const CLI_USAGE = `Usage: eventrail dev [options]

Runs the local collector: the wire interface (POST /v1/identify, /track, /page,
/screen, /group, /alias, /batch) and a live debugger page at /. For development
and tests, not for production.

Options:
  --port N                       port to listen on (default ${DEV_DEFAULT_PORT}; 0 picks a free one)
  --host HOST                    interface to listen on (default 127.0.0.1); one that
                                 is not loopback needs --expose
  --expose                       allow --host beyond loopback: the collector then serves
                                 every message it receives, unauthenticated, to that network
  --write-key KEY                a write key to accept; repeat it or separate keys
                                 with commas (default: any non-empty key)
  --out FILE                     append every message and its verdict to FILE
                                 (JSON lines)
  --destinations A,B,...         destinations of the source, for destination
                                 selection (names are case-sensitive)
  --historical-destinations A,.. which of them take historical data (default: all)
  --historical-after SECONDS     age of a timestamp, at reception, from which a
                                 message is historical (default 300)
  --max-messages N               messages kept in memory (default 10000)
  --plan FILE                    a tracking plan, the JSON of plan.toJSONSchema()
                                 (eventrail/plan): violations are shown beside the
                                 verdicts, on the page and here
  --quiet                        do not print a line per message
  -h, --help                     show this help
  -v, --version                  show the version
`

/** Reads the arguments of the `eventrail` command (without `node` and the script). Pure. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        expose: { type: 'boolean' },
        'write-key': { type: 'string', multiple: true },
        out: { type: 'string' },
        destinations: { type: 'string' },
        'historical-destinations': { type: 'string' },
        'historical-after': { type: 'string' },
        'max-messages': { type: 'string' },
        plan: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (err) {
    return { command: 'error', message: (err as Error).message }
  }
  const { values, positionals } = parsed
  if (values.help) return { command: 'help' }
  if (values.version) return { command: 'version' }
  if (positionals.length === 0) return { command: 'error', message: 'a command is required: eventrail dev' }
  if (positionals[0] !== 'dev' || positionals.length > 1) {
    return { command: 'error', message: `unknown command "${positionals.join(' ')}": the command is "dev"` }
  }
  if (values.host !== undefined && !isLoopback(values.host) && values.expose !== true) {
    return {
      command: 'error',
      message: `--host ${values.host} is not a loopback address: the collector would serve every message it receives (personal data) to that network without authentication. Add --expose if that is what you want`,
    }
  }
  try {
    const options: CollectorOptions = {
      port: values.port === undefined ? DEV_DEFAULT_PORT : integer('--port', values.port, 0),
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(values['write-key'] === undefined ? {} : { writeKeys: values['write-key'].flatMap((keys) => list('--write-key', keys)) }),
      ...(values.out === undefined ? {} : { out: values.out }),
      ...(values.destinations === undefined ? {} : { destinations: list('--destinations', values.destinations) }),
      ...(values['historical-destinations'] === undefined
        ? {}
        : { historicalDestinations: list('--historical-destinations', values['historical-destinations']) }),
      ...(values['historical-after'] === undefined
        ? {}
        : { historicalAfterMs: integer('--historical-after', values['historical-after'], 0) * 1000 }),
      ...(values['max-messages'] === undefined ? {} : { maxMessages: integer('--max-messages', values['max-messages'], 1) }),
    }
    return { command: 'dev', options, quiet: values.quiet === true, ...(values.plan === undefined ? {} : { planFile: values.plan }) }
  } catch (err) {
    return { command: 'error', message: (err as Error).message }
  }
}

/** Whether `host` names only this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name)
}

function integer(flag: string, text: string, min: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${flag} must be an integer of at least ${min} (got "${text}")`)
  return n
}

function list(flag: string, text: string): string[] {
  const names = text.split(',').map((name) => name.trim())
  if (names.some((name) => name === '')) throw new Error(`${flag} must be a comma-separated list of non-empty names (got "${text}")`)
  return names
}
