import { readFile } from 'node:fs/promises'
import { EventrailError } from '../core/errors'

/**
 * Reads the file of `eventrail dev --plan FILE`: the JSON of `plan.toJSONSchema()`. The collector
 * checks its shape.
 * @throws EventrailError naming the file and what is wrong with it.
 */
export async function readPlanFile(file: string): Promise<Readonly<Record<string, unknown>>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    throw new EventrailError(`--plan ${file}: the file cannot be read (${messageOf(err)})`)
  }
  try {
    return JSON.parse(text) as Readonly<Record<string, unknown>>
  } catch (err) {
    throw new EventrailError(`--plan ${file}: the file is not JSON (${messageOf(err)}); write it with JSON.stringify(plan.toJSONSchema())`)
  }
}

// An error's own words (fs errors from another realm are not `instanceof Error`).
function messageOf(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string'
    ? (err as Error).message
    : String(err)
}
