import { jsonEvent, progressLine, summaryTable, type InputPosition } from './render'
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
  finish(summary: ImportSummary, notes: Parameters<typeof summaryTable>[1]): void
  /** A line of text (a notice) that must not be drawn over by the live line. */
  notice(text: string): void
}

const TTY_REPAINT_MS = 250
const CLEAR_TO_END = '\u001b[K'

/** Picks the display for `out`: `--json`, a terminal, or neither. */
export function createDisplay(out: Output, json: boolean, plainIntervalS: number, input: () => InputPosition): ProgressDisplay {
  if (json) {
    return {
      intervalMs: Math.min(1000, plainIntervalS * 1000),
      show: (p) => out.write(jsonEvent('progress', p, input())),
      finish: (s) => out.write(jsonEvent('summary', s, input())),
      notice: (text) => out.write(JSON.stringify({ event: 'notice', message: text }) + '\n'),
    }
  }
  if (out.isTTY === true) {
    let drawn = false
    return {
      intervalMs: TTY_REPAINT_MS,
      show: (p) => {
        out.write(`\r${progressLine(p, input())}${CLEAR_TO_END}`)
        drawn = true
      },
      finish: (s, notes) => out.write(`\r${progressLine(s, input())}${CLEAR_TO_END}\n\n${summaryTable(s, notes)}`),
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
      out.write(`${progressLine(p, input())}\n`)
    },
    finish: (s, notes) => out.write(`${progressLine(s, input())}\n\n${summaryTable(s, notes)}`),
    notice: (text) => out.write(`${text}\n`),
  }
}
