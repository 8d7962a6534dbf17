import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { existsSync } from 'node:fs'
import * as path from 'node:path'

// `eventrail` as a user runs it: the BUILT bin (dist/cli.cjs; `npm test` builds first) in a child
// process. For the tests of the import command and the bin's help.
export const CLI = path.resolve(__dirname, '../../dist/cli.cjs')

export function assertBuilt(): void {
  if (!existsSync(CLI))
    throw new Error(`dist/cli.cjs is missing: run "npm run build" first (npm test builds before testing). Looked at ${CLI}`)
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

export interface Started {
  child: ChildProcess
  done: Promise<Run>
}

/**
 * Starts `eventrail ...args` in `cwd`. `stdin`: bytes to write to it and end, or a file descriptor
 * (a `<` redirect), or a shell command line (`sh -c`), whose output is piped in.
 */
export function startCli(cwd: string, args: readonly string[], stdin?: Buffer | { fd: number }): Started {
  const stdio: StdioOptions = [stdin !== undefined && 'fd' in stdin ? stdin.fd : 'pipe', 'pipe', 'pipe']
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio })
  return collect(child, stdin instanceof Buffer ? stdin : undefined)
}

/** Runs `command | eventrail ...args` through `sh -c` in `cwd` (a real pipe into standard input). */
export function startPiped(cwd: string, command: string, args: readonly string[]): Started {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const child = spawn('sh', ['-c', `${command} | ${quoted}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  return collect(child)
}

function collect(child: ChildProcess, input?: Buffer): Started {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => (stdout += chunk))
  child.stderr?.on('data', (chunk) => (stderr += chunk))
  child.stdin?.end(input)
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
  return { child, done }
}

export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}
