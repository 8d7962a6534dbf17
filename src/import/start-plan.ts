import { fileIdentity, loadCheckpoint, NotACheckpointError, type CheckpointRecord } from './checkpoint'
import type { ImportCommandOptions } from './args'
import type { ContentMark } from './content-mark'

const count = (n: number): string => n.toLocaleString('en-US')

/** A refusal before anything is sent: the message, and whether the usage text should follow it. */
export class Refusal extends Error {
  readonly withUsage: boolean
  constructor(message: string, withUsage = false) {
    super(message)
    this.withUsage = withUsage
  }
}

/** Where an import starts: after the checkpoint's line (`--resume`), or at line 1. */
export interface StartPlan {
  readonly start: number
  /** The checkpoint resumed from: its line and mark, checked as the input is read. */
  readonly expected?: { readonly line: number; readonly mark: ContentMark }
  readonly record?: CheckpointRecord
  /** A notice to show before the import starts. */
  readonly notice?: string
}

/** How the input is named in what the command says: `standard input` for `-`. */
export function nameOf(file: string): string {
  return file === '-' ? 'standard input' : file
}

/**
 * Decides where the import starts, from the checkpoint (when there is one): after its line with
 * `--resume`, at line 1 with `--restart`; an existing checkpoint without either stops the command,
 * so that running it again by mistake neither sends everything again nor loses the checkpoint.
 */
export async function planStart(o: ImportCommandOptions): Promise<StartPlan> {
  const path = o.checkpoint
  if (path === undefined || (o.dryRun && !o.resume)) return { start: 0 }
  let record: CheckpointRecord | undefined
  try {
    record = await loadCheckpoint(path)
  } catch (err) {
    if (err instanceof NotACheckpointError)
      throw new Refusal(`${err.message}: give --checkpoint FILE another path (that file is left as it is)`)
    throw new Refusal(`the checkpoint ${path} cannot be read (${err instanceof Error ? err.message : String(err)})`)
  }
  const name = nameOf(o.file)
  if (record === undefined) {
    return o.resume ? { start: 0, notice: `No checkpoint at ${path}: starting at line 1` } : { start: 0 }
  }
  if (o.restart) return { start: 0, notice: `Starting again at line 1 (--restart): ${path} will be replaced` }
  const when = record.updatedAt ? `, written ${record.updatedAt}` : ''
  const isOwn = record.file === (await fileIdentity(o.file))
  if (!isOwn) {
    throw new Refusal(
      `${path} is the checkpoint of ${record.file}, not of ${o.file}: give --checkpoint FILE for this one, or add --restart to replace it`,
    )
  }
  if (!o.resume) {
    const line = count(record.line)
    throw new Refusal(
      record.complete === true
        ? `${name} was imported in full already (checkpoint ${path}: line ${line}${when}). Add --restart to import it again from line 1, or --resume to send only the lines added since`
        : `an import of ${name} stopped after line ${line} (checkpoint ${path}${when}). Add --resume to continue after line ${line}, or --restart to import it again from line 1 (the checkpoint is then replaced)`,
    )
  }
  if (record.content === undefined || !isMark(record.content)) {
    throw new Refusal(
      `${path} does not record what identifies the content of ${name} (an older eventrail wrote it), so resuming from it could skip lines that were never sent. Add --restart to import it again from line 1`,
    )
  }
  return { start: record.line, expected: { line: record.line, mark: record.content }, record }
}

function isMark(value: unknown): value is ContentMark {
  const m = value as Partial<ContentMark> | null
  const isDigest = (d: unknown): boolean =>
    typeof d === 'object' &&
    d !== null &&
    typeof (d as { bytes?: unknown }).bytes === 'number' &&
    typeof (d as { sha256?: unknown }).sha256 === 'string'
  return typeof m === 'object' && m !== null && typeof m.offset === 'number' && isDigest(m.head) && isDigest(m.tail)
}

// Why a checkpoint is not resumed from: how the input differs, what the file was and is, what to do.
export function mismatch(
  o: ImportCommandOptions,
  record: CheckpointRecord,
  reason: string,
  now?: { size?: number; modifiedMs?: number },
): string {
  const then =
    record.size !== undefined && now?.size !== undefined
      ? ` (when the checkpoint was written it was ${count(record.size)} bytes, modified ${record.modifiedAt ?? '?'}; it is now ${count(now.size)} bytes, modified ${now.modifiedMs === undefined ? '?' : new Date(now.modifiedMs).toISOString()})`
      : ''
  return (
    `${nameOf(o.file)} is not the input that the checkpoint ${o.checkpoint} was written for: ${reason}${then}. ` +
    `Resuming would skip lines that were never sent. Add --restart to import it from line 1, or give --checkpoint FILE for a new one`
  )
}
