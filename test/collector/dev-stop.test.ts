import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertBuilt, startCli, waitFor, type Started } from '../import/run-cli'
import { post } from './helpers'

// Issue 30: `eventrail dev` stopped by Ctrl+C printed nothing, and without --destinations every
// message showed "none" with nothing saying how to set them. The built bin, in a child process.

let dir: string
let started: Started | undefined
let stdout = ''
beforeAll(() => assertBuilt())
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventrail-dev-'))
  stdout = ''
})
afterEach(async () => {
  if (started !== undefined && started.child.exitCode === null) started.child.kill('SIGKILL')
  await started?.done
  started = undefined
  await rm(dir, { recursive: true, force: true })
})

async function startDev(args: string[]): Promise<string> {
  started = startCli(dir, ['dev', '--port', '0', ...args])
  started.child.stdout?.on('data', (chunk) => (stdout += chunk))
  await waitFor(() => /listening on (http:\/\/\S+)/.test(stdout), 'the collector to listen')
  return /listening on (http:\/\/\S+)/.exec(stdout)![1]
}

async function sendThree(url: string): Promise<void> {
  const batch = [
    { type: 'track', userId: 'u1', event: 'A' },
    { type: 'identify', userId: 'u2' },
    { type: 'track', userId: 'u3' }, // no event: dropped
  ]
  expect((await post(url, '/v1/batch', { batch }, { writeKey: 'k' })).status).toBe(200)
}

it.each(['SIGINT', 'SIGTERM'] as const)('prints one line on %s: received, accepted, dropped, and the records in --out', async (signal) => {
  const out = join(dir, 'events.jsonl')
  const url = await startDev(['--out', out, '--quiet'])
  await sendThree(url)
  started!.child.kill(signal)
  const run = await started!.done
  expect(run.code).toBe(0)
  const lines = (await readFile(out, 'utf8')).trim().split('\n')
  expect(lines).toHaveLength(3)
  expect(run.stdout.trimEnd().split('\n').pop()).toBe(
    `eventrail dev stopped: 3 messages received, 2 accepted, 1 dropped; 3 records written to ${out}`,
  )
})

it('says it in the singular, and without --out names no file', async () => {
  const url = await startDev(['--quiet'])
  expect((await post(url, '/v1/track', { userId: 'u', event: 'E' })).status).toBe(200)
  started!.child.kill('SIGINT')
  const run = await started!.done
  expect(run.stdout.trimEnd().split('\n').pop()).toBe('eventrail dev stopped: 1 message received, 1 accepted, 0 dropped')
})

it('without --destinations, says that messages show "none" and how to name destinations', async () => {
  const url = await startDev([])
  expect(stdout).toContain('destinations:  none configured, so every message shows "→ none": name them with --destinations "Amplitude,Mixpanel"')
  expect((await post(url, '/v1/track', { userId: 'u', event: 'E' })).status).toBe(200)
  await waitFor(() => stdout.includes('→ none'), 'the message line')
  started!.child.kill('SIGINT')
  await started!.done
})

it('with --destinations, lists them and gives no hint', async () => {
  await startDev(['--destinations', 'Amplitude,Mixpanel'])
  expect(stdout).toContain('destinations:  Amplitude, Mixpanel\n')
  expect(stdout).not.toContain('--destinations "')
  started!.child.kill('SIGINT')
  await started!.done
})
