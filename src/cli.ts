#!/usr/bin/env node
import { CLI_USAGE, parseCliArgs } from './collector/cli-args'
import { runDev } from './collector/dev'
import { readPlanFile } from './collector/plan-file'
import { VERSION } from './version'

// The `eventrail` bin: `eventrail dev`, the local collector and its debugger, and `eventrail import`.

// A reader that goes away (`eventrail import … | head`, a closed terminal) ends the output, not the
// command: Node reports the closed pipe as an 'error' event on the stream, which unheard would
// crash the process. The import still finishes and writes its checkpoint; the collector keeps
// serving. What is written after that is dropped.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'import') {
    // Loaded only for this command: `eventrail dev` does not pay for it, nor it for the collector.
    const { runImportCommand } = await import('./import/command')
    return runImportCommand(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin })
  }
  const parsed = parseCliArgs(argv)
  if (parsed.command === 'help') {
    process.stdout.write(CLI_USAGE)
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
  await collector.close()
  return 0
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
