/**
 * How deep JSON may nest in a body the collector takes. `JSON.parse` accepts thousands of levels
 * that `JSON.stringify` cannot write back (the record would then break the API, the live feed and
 * `--out`); no real message comes near 100.
 */
export const MAX_JSON_DEPTH = 100

/** Whether the JSON text nests objects and arrays deeper than `max`: one pass, strings skipped. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 0x5c)
        i++ // a backslash escapes the next character
      else if (ch === 0x22) inString = false
    } else if (ch === 0x22) inString = true
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return true
    } else if (ch === 0x7d || ch === 0x5d) depth--
  }
  return false
}
