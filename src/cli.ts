#!/usr/bin/env node
import { CLI_USAGE, parseCliArgs } from './collector/cli-args'
import { runDev, stopLine } from './collector/dev'
import { readPlanFile } from './collector/plan-file'
import { VERSION } from './core/version'

// The `eventrail` bin: `eventrail dev`, the local collector and its debugger, `eventrail import`
// and `eventrail spool`.

/** What `eventrail --help` (or `eventrail` alone) prints: every command, one line each, and examples. */
export const COMMANDS_USAGE = `Usage: eventrail <command> [options]

Commands:
  dev       run a local collector and its debugger page: see what your app sends
  import    send a file of JSON lines (an export, .gz, or -) to the service, resumably
  spool     look after a disk spool: inspect, verify, export (for import), purge

Examples:
  eventrail dev                                       then open http://127.0.0.1:4040/
  eventrail import events.jsonl --write-key KEY       --resume continues after Ctrl+C
  eventrail spool inspect /var/lib/app/analytics      what waits there, and whose

"eventrail <command> --help" shows the options of a command.

Options:
  -h, --help      show this help
  -v, --version   show the version
`

const COMMANDS = ['dev', 'import', 'spool']

// A reader that goes away (`eventrail import … | head`, a closed terminal) ends the output, not the
// command: Node reports the closed pipe as an 'error' event on the stream, which unheard would
// crash the process. The import still finishes and writes its checkpoint; the collector keeps
// serving. What is written after that is dropped.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'help') argv = argv.length > 1 ? [argv[1], '--help'] : ['--help']
  if (argv[0] === 'import') {
    // Loaded only for this command: `eventrail dev` does not pay for it, nor it for the collector.
    const { runImportCommand } = await import('./import/command')
    return runImportCommand(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin })
  }
  if (argv[0] === 'spool') {
    // Loaded only for this command, as import is: the spool's readers cost the others nothing.
    const { runSpoolCommand } = await import('./cli/spool-command')
    return runSpoolCommand(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin })
  }
  if (argv.length === 0) {
    process.stderr.write(`eventrail: a command is required\n\n${COMMANDS_USAGE}`)
    return 2
  }
  const first = argv[0]
  if (!first.startsWith('-') && !COMMANDS.includes(first)) {
    process.stderr.write(`eventrail: unknown command "${first}": the commands are ${COMMANDS.slice(0, -1).join(', ')} and ${COMMANDS[COMMANDS.length - 1]}\n\n${COMMANDS_USAGE}`)
    return 2
  }
  const parsed = parseCliArgs(argv)
  if (parsed.command === 'help') {
    // `eventrail dev --help`: the options of dev; `eventrail --help`: every command.
    process.stdout.write(argv.includes('dev') ? CLI_USAGE : COMMANDS_USAGE)
    return 0
  }
  if (parsed.command === 'version') {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  if (parsed.command === 'error') {
    process.stderr.write(`eventrail: ${parsed.message}\n\n${CLI_USAGE}`)
    return 2
  }
  const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
  const options = parsed.planFile === undefined ? parsed.options : { ...parsed.options, plan: await readPlanFile(parsed.planFile) }
  const collector = await runDev(options, parsed.quiet, {
    write: (text) => process.stdout.write(text),
    error: (text) => process.stderr.write(text),
    color,
  })
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  // Closed first, so that the count of records is of what the --out file holds.
  let closeError: string | undefined
  await collector.close().catch((err: unknown) => (closeError = err instanceof Error ? err.message : String(err)))
  process.stdout.write(`${process.stdout.isTTY === true ? '\n' : ''}${stopLine(collector.stats(), options.out)}`)
  if (closeError === undefined) return 0
  process.stderr.write(`eventrail: the --out file ${options.out ?? ''} could not be written completely (${closeError})\n`)
  return 1
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`eventrail: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
