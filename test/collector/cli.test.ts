import { CLI_USAGE, parseCliArgs } from '../../src/collector/cli-args'
import { formatLine, runDev } from '../../src/collector/dev'
import { formatRecords } from '../../src/collector/format'
import type { Collector } from '../../src/collector'
import { post } from './helpers'

describe('parseCliArgs: the eventrail command line', () => {
  it('runs dev on port 4040 by default, accepting any write key', () => {
    expect(parseCliArgs(['dev'])).toEqual({ command: 'dev', options: { port: 4040 }, quiet: false })
  })

  it('reads every option of dev', () => {
    const parsed = parseCliArgs([
      'dev',
      '--port',
      '0',
      '--host',
      '::1',
      '--write-key',
      'k1',
      '--write-key',
      'k2,k3',
      '--out',
      'events.jsonl',
      '--destinations',
      'Amplitude, Google Analytics',
      '--historical-destinations',
      'Amplitude',
      '--historical-after',
      '60',
      '--max-messages',
      '50',
      '--quiet',
    ])
    expect(parsed).toEqual({
      command: 'dev',
      quiet: true,
      options: {
        port: 0,
        host: '::1',
        writeKeys: ['k1', 'k2', 'k3'],
        out: 'events.jsonl',
        destinations: ['Amplitude', 'Google Analytics'],
        historicalDestinations: ['Amplitude'],
        historicalAfterMs: 60_000,
        maxMessages: 50,
      },
    })
  })

  it.each([
    [[], 'a command is required: eventrail dev'],
    [['serve'], 'unknown command "serve": the command is "dev"'],
    [['dev', '--port', 'abc'], '--port must be an integer of at least 0 (got "abc")'],
    [['dev', '--max-messages', '0'], '--max-messages must be an integer of at least 1 (got "0")'],
    [['dev', '--destinations', 'A,,B'], '--destinations must be a comma-separated list of non-empty names (got "A,,B")'],
  ])('refuses %j: %s', (argv, message) => {
    expect(parseCliArgs(argv)).toEqual({ command: 'error', message })
  })

  it('refuses an unknown option, naming it', () => {
    const parsed = parseCliArgs(['dev', '--prot', '1'])
    expect(parsed.command).toBe('error')
    expect((parsed as { message: string }).message).toContain("'--prot'")
  })

  it('answers --help and --version', () => {
    expect(parseCliArgs(['--help'])).toEqual({ command: 'help' })
    expect(parseCliArgs(['dev', '-v'])).toEqual({ command: 'version' })
    expect(CLI_USAGE).toContain('--write-key KEY')
  })
})

describe('runDev: what eventrail dev prints', () => {
  let collector: Collector | undefined
  afterEach(async () => {
    await collector?.close()
  })

  it('prints where it listens, then one line per message with its verdict', async () => {
    let text = ''
    collector = await runDev({ port: 0, writeKeys: ['dev-key'], destinations: ['Amplitude'] }, false, {
      write: (t) => (text += t),
      color: false,
    })
    expect(text).toContain(`eventrail collector listening on ${collector.url}`)
    expect(text).toContain(`new Analytics('dev-key', { host: '${collector.url}' })`)
    await post(collector.url, '/v1/track', { userId: 'u1', event: 'Signed Up' }, { writeKey: 'dev-key' })
    await post(collector.url, '/v1/track', { userId: 'u1' }, { writeKey: 'dev-key' })
    const lines = text.trimEnd().split('\n').slice(-2)
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3}  track     u1  Signed Up  accepted  → Amplitude$/)
    expect(lines[1]).toMatch(/  track     u1  —  dropped: track: "event" is required \(a non-empty string\)$/)
  })

  it('prints no message lines when quiet', async () => {
    let text = ''
    collector = await runDev({ port: 0 }, true, { write: (t) => (text += t), color: false })
    const before = text
    await post(collector.url, '/v1/identify', { userId: 'u1' })
    expect(collector.messages).toHaveLength(1)
    expect(text).toBe(before)
  })
})

describe('formatLine and formatRecords', () => {
  const accepted = {
    id: 1,
    requestId: 1,
    receivedAt: '2024-05-01T12:00:00.000Z',
    path: '/v1/batch',
    writeKey: 'k',
    type: 'track',
    verdict: 'accepted' as const,
    message: { userId: 'u1', event: 'Imported' },
    destinations: ['Amplitude'],
    historical: true,
  }
  const dropped = {
    id: 2,
    requestId: 1,
    receivedAt: '2024-05-01T12:00:00.000Z',
    path: '/v1/batch',
    writeKey: 'k',
    type: 'group',
    verdict: 'dropped' as const,
    reason: 'group: "groupId" is required (a non-empty string)',
    code: 'missing_group_id' as const,
    message: { anonymousId: 'a1' },
  }

  it('colours the verdict only when asked', () => {
    expect(formatLine(accepted, false)).toBe('12:00:00.000  track     u1  Imported  accepted  → Amplitude (historical)')
    expect(formatLine(dropped, true)).toContain('\u001b[31mdropped: group: "groupId" is required (a non-empty string)\u001b[0m')
  })

  it('lays records out as an aligned table', () => {
    expect(formatRecords([accepted, dropped]).split('\n')).toEqual([
      '#  type   identity        event / name  destinations            verdict',
      '-  -----  --------------  ------------  ----------------------  ------------',
      '1  track  u1              Imported      Amplitude (historical)  accepted',
      '2  group  a1 (anonymous)  —             —                       dropped: group: "groupId" is required (a non-empty string)',
      '',
    ])
  })
})
