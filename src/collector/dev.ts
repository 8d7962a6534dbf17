import { summarizeRecord } from './format'
import { createCollector } from './server'
import type { Collector, CollectorOptions, MessageRecord } from './types'

/** Where `eventrail dev` writes, and whether it may use ANSI colours. */
export interface DevOutput {
  write(text: string): unknown
  readonly color: boolean
}

/**
 * Starts the collector for `eventrail dev`, prints where it listens and how to point a client at
 * it, then (unless `quiet`) one line per message with its verdict.
 * @throws EventrailError when the collector cannot start (port taken, `out` not writable).
 */
export async function runDev(options: CollectorOptions, quiet: boolean, output: DevOutput): Promise<Collector> {
  const collector = await createCollector(options)
  const keys = options.writeKeys?.length ? options.writeKeys.join(', ') : 'any non-empty key'
  const lines = [
    `eventrail collector listening on ${collector.url}`,
    `  debugger:      ${collector.url}/`,
    `  write keys:    ${keys}`,
    `  destinations:  ${options.destinations?.length ? options.destinations.join(', ') : 'none configured'}`,
    ...(options.out ? [`  writing to:    ${options.out}`] : []),
    `  client:        new Analytics('${options.writeKeys?.[0] ?? 'WRITE_KEY'}', { host: '${collector.url}' })`,
    'Press Ctrl+C to stop.',
    '',
  ]
  output.write(lines.join('\n'))
  if (!quiet) collector.on('message', (record) => output.write(formatLine(record, output.color) + '\n'))
  return collector
}

/** One line for a message record: time, type, identity, detail, verdict and destinations. */
export function formatLine(record: MessageRecord, color: boolean): string {
  const s = summarizeRecord(record)
  const paint = (code: number, text: string): string => (color ? `\u001b[${code}m${text}\u001b[0m` : text)
  const time = record.receivedAt.slice(11, 23)
  const verdict = record.verdict === 'accepted' ? paint(32, 'accepted') : paint(31, s.verdict)
  const where = record.verdict === 'accepted' ? `  → ${s.destinations}` : ''
  return `${paint(2, time)}  ${s.type.padEnd(8)}  ${s.identity}  ${s.detail}  ${verdict}${where}`
}
