/* eslint-disable no-control-regex -- these tests look for control characters */
import { formatRecords, type Collector } from '../../src/collector'
import { parseCliArgs } from '../../src/collector/cli-args'
import { formatLine, runDev } from '../../src/collector/dev'
import { post } from './helpers'

// What eventrail dev prints comes from requests: no control character may reach the terminal.

let collector: Collector | undefined
afterEach(() => collector?.close())

const HOSTILE = {
  userId: 'u1\u001b[2J\u001b[H',
  event: 'Fake\r12:00:00.000  track  admin  Everything fine  accepted\u001b]0;owned\u0007\u001b]52;c;ZXZpbA==\u0007\u009b31m\u007f',
}

it('escapes every C0 and C1 control character and DEL in the lines eventrail dev prints', async () => {
  const printed: string[] = []
  collector = await runDev({ port: 0 }, false, { write: (text) => printed.push(text), color: true })
  await post(collector.url, '/v1/track', HOSTILE)
  await post(collector.url, '/v1/track', { ...HOSTILE, event: undefined })
  await collector.waitForMessages(2)
  const lines = printed.slice(1).join('')
  // Only the collector's own colour codes remain: ESC followed by a colour, nothing else.
  const stripped = lines.replace(/\u001b\[(?:0|2|31|32)m/g, '')
  expect(stripped).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  expect(stripped).toContain('u1\\x1b[2J\\x1b[H')
  expect(stripped).toContain('Fake\\x0d12:00:00.000')
  expect(stripped).toContain('\\x1b]52;c;ZXZpbA==\\x07')
  expect(stripped).toContain('\\x9b31m\\x7f')
  expect(lines.split('\n').filter((l) => l !== '')).toHaveLength(2)
  expect(formatLine(collector.messages[0], false)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  expect(formatRecords(collector.messages)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
})

describe('--host beyond loopback', () => {
  it('is refused without --expose, naming the flag and why', () => {
    const parsed = parseCliArgs(['dev', '--host', '0.0.0.0'])
    expect(parsed.command).toBe('error')
    expect(parsed.command === 'error' && parsed.message).toMatch(/^--host 0\.0\.0\.0 is not a loopback address: .* Add --expose/)
  })

  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('is accepted for the loopback address %s', (host) => {
    expect(parseCliArgs(['dev', '--host', host]).command).toBe('dev')
  })

  it('starts with --expose and prints a warning first', async () => {
    const parsed = parseCliArgs(['dev', '--host', '0.0.0.0', '--expose', '--port', '0'])
    expect(parsed.command).toBe('dev')
    const printed: string[] = []
    if (parsed.command !== 'dev') return
    collector = await runDev(parsed.options, true, { write: (text) => printed.push(text), color: false })
    expect(printed[0]).toMatch(
      /^WARNING: listening on 0\.0\.0\.0, beyond this machine: every message, with its personal data, is served without authentication/,
    )
    await collector.close()
    collector = undefined
  })
})
