/** `text` with the indentation of each line outside a literal removed, each comment-only line emptied, and what each line lost. */
export function dedent(text: string): { text: string; removed: number[] }
/** A source map's `mappings` with each generated line's columns moved left by what the line lost. */
export function shiftMappings(mappings: string, removed: number[]): string
/** Removes the indentation of a built file, and shifts its map when there is one. */
export function dedentFile(file: string): void
