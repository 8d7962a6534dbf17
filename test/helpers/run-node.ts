import { spawn } from 'node:child_process'

/** What a Node script printed and how it ended. */
export interface NodeRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** stdout and stderr in the order they came. */
  readonly output: string
}

/**
 * Runs `file` with this Node, killed (SIGKILL) past `limitMs` so that a test stops by itself;
 * resolves with what it printed and its exit code.
 */
export function runNode(file: string, limitMs: number, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      output += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      output += chunk
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, output })
    })
  })
}
