import { jsonEvent, progressLine, summaryTable, type InputPosition, type SummaryNotes } from './render'
import type { ImportProgress, ImportSummary } from './types'

/** Where the command writes. */
export interface Output {
  write(text: string): unknown
  readonly isTTY?: boolean
}

/** How progress is shown: a live line on a terminal, a plain line every few seconds elsewhere, or JSON events. */
export interface ProgressDisplay {
  /** How often the import should report progress, in ms. */
  readonly intervalMs: number
  show(progress: ImportProgress): void
  /** The last progress, the summary, and (with `--json`) `extra` in the summary event. */
  finish(summary: ImportSummary, notes: SummaryNotes, extra?: Record<string, unknown>): void
  /** A line of text (a notice) that must not be drawn over by the live line. */
  notice(text: string): void
}

const TTY_REPAINT_MS = 250
const CLEAR_TO_END = '\u001b[K'

/**
 * Picks the display for `out`: `--json`, a terminal, or neither. `input` tells how far into its
 * input the import is, for a progress of `elapsedMs`; `dryRun` says "would send" for "sent".
 */
export function createDisplay(
  out: Output,
  json: boolean,
  plainIntervalS: number,
  input: (elapsedMs: number) => InputPosition,
  dryRun = false,
): ProgressDisplay {
  const line = (p: ImportProgress): string => progressLine(p, input(p.elapsedMs), dryRun)
  if (json) {
    return {
      intervalMs: Math.min(1000, plainIntervalS * 1000),
      show: (p) => out.write(jsonEvent('progress', p, input(p.elapsedMs))),
      finish: (s, _notes, extra) => out.write(jsonEvent('summary', s, input(s.elapsedMs), extra)),
      notice: (text) => out.write(JSON.stringify({ event: 'notice', message: text }) + '\n'),
    }
  }
  if (out.isTTY === true) {
    let drawn = false
    return {
      intervalMs: TTY_REPAINT_MS,
      show: (p) => {
        out.write(`\r${line(p)}${CLEAR_TO_END}`)
        drawn = true
      },
      finish: (s, notes) => out.write(`\r${line(s)}${CLEAR_TO_END}\n\n${summaryTable(s, notes)}`),
      notice: (text) => {
        out.write(`${drawn ? `\r${CLEAR_TO_END}` : ''}${text}\n`)
        drawn = false
      },
    }
  }
  let lastMs = Date.now()
  return {
    // Also the cadence of checkpoint writes: at most a second apart.
    intervalMs: Math.min(1000, plainIntervalS * 1000),
    show: (p) => {
      const now = Date.now()
      if (now - lastMs < plainIntervalS * 1000) return
      lastMs = now
      out.write(`${line(p)}\n`)
    },
    finish: (s, notes) => out.write(`${line(s)}\n\n${summaryTable(s, notes)}`),
    notice: (text) => out.write(`${text}\n`),
  }
}
