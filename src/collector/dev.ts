import { isLoopback } from './cli-args'
import { summarizeRecord } from './format'
import type { PlanViolation } from './plan-schema'
import { counted, safeText } from './terminal-text'
import { createCollector } from './server'
import type { Collector, CollectorOptions, CollectorStats, MessageRecord, RequestRecord } from './types'

/** Where `eventrail dev` writes, and whether it may use ANSI colours. */
export interface DevOutput {
  write(text: string): unknown
  /** Where failures go (standard error); `write` when absent. */
  error?(text: string): unknown
  readonly color: boolean
}

/**
 * Starts the collector for `eventrail dev`, prints where it listens and how to point a client at
 * it, then (unless `quiet`) one line per message with its verdict.
 * @throws EventrailError when the collector cannot start (port taken, `out` not writable).
 */
export async function runDev(options: CollectorOptions, quiet: boolean, output: DevOutput): Promise<Collector> {
  const collector = await createCollector(options)
  const keys = options.writeKeys?.length ? options.writeKeys.map(safeText).join(', ') : 'any non-empty key'
  const exposed = options.host !== undefined && !isLoopback(options.host)
  const lines = [
    ...(exposed
      ? [
          `WARNING: listening on ${safeText(options.host ?? '')}, beyond this machine: every message, with its personal data, is served without authentication to anyone who can reach it.`,
        ]
      : []),
    `eventrail collector listening on ${collector.url}`,
    `  debugger:      ${collector.url}/`,
    `  write keys:    ${keys}`,
    `  destinations:  ${options.destinations?.length ? options.destinations.map(safeText).join(', ') : NO_DESTINATIONS}`,
    ...(options.out ? [`  writing to:    ${safeText(options.out)}`] : []),
    ...(options.plan
      ? [
          `  plan:          ${Object.keys((options.plan as { definitions?: { events?: object } }).definitions?.events ?? {}).length} events (violations shown beside the verdicts)`,
        ]
      : []),
    `  client:        new Analytics('${safeText(options.writeKeys?.[0] ?? 'WRITE_KEY')}', { host: '${collector.url}' })`,
    'Press Ctrl+C to stop.',
    '',
  ]
  output.write(lines.join('\n'))
  if (!quiet) {
    collector.on('message', (record) => output.write(formatLine(record, output.color) + '\n'))
    // A refused request has no message line: a client pointed at a wrong path would see nothing.
    collector.on('request', (record) => {
      if (record.status >= 400) output.write(formatRequestLine(record, output.color) + '\n')
    })
  }
  // Reported at once, even with --quiet: a full disk must not pass for "accepted" lines.
  collector.on('error', (err) => (output.error ?? output.write).call(output, `eventrail: ${safeText(err.message)}\n`))
  return collector
}

// Without --destinations every accepted message shows "→ none": said once, with how to set them.
const NO_DESTINATIONS = 'none configured, so every message shows "→ none": name them with --destinations "Amplitude,Mixpanel"'

/**
 * The line `eventrail dev` prints when it stops (Ctrl+C, SIGTERM): messages received, accepted and
 * dropped, and the records written to the `--out` file (and any left out of it).
 */
export function stopLine(stats: CollectorStats, out: string | undefined): string {
  const dropped = stats.messages - stats.accepted
  const file =
    out === undefined || stats.out === undefined
      ? ''
      : `; ${counted(stats.out.written, 'record')} written to ${safeText(out)}` +
        (stats.out.lost > 0 ? ` (${counted(stats.out.lost, 'record')} left out: the file could not be written)` : '')
  return `eventrail dev stopped: ${counted(stats.messages, 'message')} received, ${stats.accepted.toLocaleString('en-US')} accepted, ${dropped.toLocaleString('en-US')} dropped${file}\n`
}

/** One line for a message record: time, type, identity, detail, verdict and destinations. */
export function formatLine(record: MessageRecord, color: boolean): string {
  const s = summarizeRecord(record)
  const paint = (code: number, text: string): string => (color ? `\u001b[${code}m${text}\u001b[0m` : text)
  const time = record.receivedAt.slice(11, 23)
  // Everything from a request is escaped before it reaches the terminal: no control character
  // (a clear screen, a fake line with \r, a window title, OSC 52 to the clipboard) gets through.
  const verdict = record.verdict === 'accepted' ? paint(32, 'accepted') : paint(31, safeText(s.verdict))
  const where = record.verdict === 'accepted' ? `  → ${safeText(s.destinations)}` : ''
  const plan = record.violations?.length ? `  ${paint(33, `plan: ${safeText(violationText(record.violations))}`)}` : ''
  return `${paint(2, safeText(time))}  ${safeText(s.type).padEnd(8)}  ${safeText(s.identity)}  ${safeText(s.detail)}  ${verdict}${where}${plan}`
}

/** The violations of a record, in one line: the first ones in full, then how many more. */
export function violationText(violations: readonly PlanViolation[]): string {
  const shown = violations.slice(0, 3).map((v) => `"${v.path}" ${v.message}`)
  const more = violations.length > 3 ? `; and ${violations.length - 3} more` : ''
  return shown.join('; ') + more
}

/** One line for a refused request: time, method, path, status and why (`404: no endpoint …`). */
export function formatRequestLine(record: RequestRecord, color: boolean): string {
  const paint = (code: number, text: string): string => (color ? `\u001b[${code}m${text}\u001b[0m` : text)
  const refused = `${record.status}: ${record.error ?? 'refused'}`
  return `${paint(2, safeText(record.receivedAt.slice(11, 23)))}  ${safeText(`${record.method} ${record.path}`)}  ${paint(31, safeText(refused))}`
}
