/**
 * Text from a request made safe to print on a terminal: every C0 control character (U+0000 to
 * U+001F, escape included), DEL (U+007F) and every C1 control character (U+0080 to U+009F, which
 * some terminals read as escape sequences) is shown as a `\xNN` / `\u00NN` escape instead of being
 * written. Line and paragraph separators too, so one record stays one line.
 */
export function safeText(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) => {
    const code = ch.charCodeAt(0)
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** A count with its noun, in agreement: `1 message`, `2 messages`, `12,000 records`. */
export function counted(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : `${noun}s`}`
}
