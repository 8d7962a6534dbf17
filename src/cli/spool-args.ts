import { parseArgs } from 'node:util'

/** The actions of `eventrail spool`. */
export const SPOOL_ACTIONS = ['inspect', 'verify', 'export', 'purge'] as const

/** One action of `eventrail spool`. */
export type SpoolAction = (typeof SPOOL_ACTIONS)[number]

/** What `eventrail spool` was asked to do. */
export interface SpoolCommandOptions {
  readonly action: SpoolAction
  readonly dir: string
  readonly json: boolean
  /** export, purge: the dead letters (`keepRejected`) instead of the records that wait. */
  readonly rejected: boolean
  /** purge: delete without asking. */
  readonly yes: boolean
  /** export: only the records of this write key… */
  readonly writeKey: string | undefined
  /** …sent to this host (the client's `host` option; its default when not given). */
  readonly host: string | undefined
}

/** The arguments read: options, a request for help, or a usage error naming the flag. */
export type SpoolArgs =
  | { readonly command: 'spool'; readonly options: SpoolCommandOptions }
  | { readonly command: 'help' }
  | { readonly command: 'error'; readonly message: string }

/** The help text of `eventrail spool`. */
export const SPOOL_USAGE = `Usage: eventrail spool <action> DIR [options]

Looks after a disk spool (the client's "spool: { dir }"): what waits in it,
whether its files are whole, and a way out for records that are stuck. The
read-only actions take nothing over, ack nothing and change nothing; they
read the directory as a client does (it must be yours and not writable by
others; no link is followed).

Actions:
  inspect DIR    its parts, whether their clients are alive or gone, their
                 segments, the records waiting, bytes, torn records, and the
                 dead letters kept (keepRejected)
  verify DIR     checks every record's checksum; exit status 0 when all is
                 whole, 1 with what is damaged (for scripts)
  export DIR     writes the records that wait as JSON lines to standard
                 output, for "eventrail import"; deletes nothing
  purge DIR      deletes the records of parts whose client is gone (asks
                 first; parts of a live client or of another host stay)

Examples:
  eventrail spool inspect /var/lib/app/analytics
  eventrail spool export /var/lib/app/analytics > waiting.jsonl
  eventrail import waiting.jsonl --write-key KEY
  eventrail spool export --rejected /var/lib/app/analytics > refused.jsonl

Options:
  --json             inspect, verify: one JSON object instead of text
  --rejected         export, purge: the dead letters instead of the records
                     that wait
  --write-key KEY    export: only what was accepted with this write key…
  --host URL         …and sent to this host (default https://api.segment.io)
  --yes              purge: do not ask (needed when standard input is not a
                     terminal)
  -h, --help         show this help
`

/** Reads the arguments of `eventrail spool` (after `spool`). Pure. */
export function parseSpoolArgs(argv: readonly string[]): SpoolArgs {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        rejected: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        'write-key': { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (err) {
    return { command: 'error', message: err instanceof Error ? err.message : String(err) }
  }
  const { values, positionals } = parsed
  if (values.help === true) return { command: 'help' }
  const [action, dir, ...extra] = positionals
  if (action === undefined) return { command: 'error', message: `an action is required: ${SPOOL_ACTIONS.join(', ')}` }
  if (!(SPOOL_ACTIONS as readonly string[]).includes(action))
    return { command: 'error', message: `unknown action "${action}": the actions are ${SPOOL_ACTIONS.join(', ')}` }
  if (dir === undefined || dir === '') return { command: 'error', message: `${action} needs the spool's directory (DIR)` }
  if (extra.length > 0) return { command: 'error', message: `one directory at a time (got also "${extra[0]}")` }
  const flag = (name: string, allowed: boolean): string | undefined =>
    allowed ? undefined : `--${name} is not an option of ${action}`
  const misuse =
    (values.json === true ? flag('json', action === 'inspect' || action === 'verify') : undefined) ??
    (values.rejected === true ? flag('rejected', action === 'export' || action === 'purge') : undefined) ??
    (values.yes === true ? flag('yes', action === 'purge') : undefined) ??
    (values['write-key'] !== undefined ? flag('write-key', action === 'export') : undefined) ??
    (values.host !== undefined ? flag('host', action === 'export') : undefined) ??
    (values.host !== undefined && values['write-key'] === undefined ? '--host needs --write-key' : undefined)
  if (misuse !== undefined) return { command: 'error', message: misuse }
  if (values['write-key'] === '') return { command: 'error', message: '--write-key must not be empty' }
  return {
    command: 'spool',
    options: {
      action: action as SpoolAction,
      dir: dir.replace(/\/+$/, '') || '/',
      json: values.json === true,
      rejected: values.rejected === true,
      yes: values.yes === true,
      writeKey: values['write-key'],
      host: values.host,
    },
  }
}
