/**
 * A JSON Schema `pattern` (an ECMAScript regular expression, read with the `u` flag) as a tree the
 * collector can run in linear time (see `pattern-match.ts`). Only what a regular language can say
 * is read: a backreference cannot be run without backtracking, so it is refused.
 */
export type PatternNode =
  /** One character, matched by the native RegExp of `source` (a literal, a class, an escape, `.`). */
  | { readonly kind: 'char'; readonly source: string }
  | { readonly kind: 'seq'; readonly items: readonly PatternNode[] }
  | { readonly kind: 'alt'; readonly options: readonly PatternNode[] }
  /** `max` is `Infinity` for `*`, `+` and `{n,}`. */
  | { readonly kind: 'repeat'; readonly body: PatternNode; readonly min: number; readonly max: number }
  | { readonly kind: 'edge'; readonly at: 'start' | 'end' | 'word' | 'notWord' }
  | { readonly kind: 'look'; readonly behind: boolean; readonly negate: boolean; readonly body: PatternNode }

/** Why a pattern cannot be run in linear time: the rule, in words (thrown by {@link parsePattern}). */
export class PatternRefusal extends Error {
  override name = 'PatternRefusal'
}

/**
 * Reads a pattern that `new RegExp(source, 'u')` accepts (the caller checks that first).
 * @throws PatternRefusal for a backreference or a group modifier.
 */
export function parsePattern(source: string): PatternNode {
  return new PatternReader(source).read()
}

class PatternReader {
  readonly #source: string
  #at = 0

  constructor(source: string) {
    this.#source = source
  }

  read(): PatternNode {
    const node = this.#alternation()
    if (this.#at < this.#source.length) throw new PatternRefusal(`cannot be read at character ${this.#at + 1}`)
    return node
  }

  #alternation(): PatternNode {
    const options = [this.#sequence()]
    while (this.#peek() === '|') {
      this.#at++
      options.push(this.#sequence())
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options }
  }

  #sequence(): PatternNode {
    const items: PatternNode[] = []
    while (this.#at < this.#source.length && this.#peek() !== '|' && this.#peek() !== ')') items.push(this.#quantified(this.#atom()))
    return items.length === 1 ? items[0] : { kind: 'seq', items }
  }

  #atom(): PatternNode {
    const c = this.#next()
    if (c === '(') return this.#group()
    if (c === '[') return { kind: 'char', source: this.#classRest() }
    if (c === '\\') return this.#escape()
    if (c === '^') return { kind: 'edge', at: 'start' }
    if (c === '$') return { kind: 'edge', at: 'end' }
    return { kind: 'char', source: c }
  }

  #group(): PatternNode {
    let look: { behind: boolean; negate: boolean } | undefined
    if (this.#take('?:')) look = undefined
    else if (this.#take('?=')) look = { behind: false, negate: false }
    else if (this.#take('?!')) look = { behind: false, negate: true }
    else if (this.#take('?<=')) look = { behind: true, negate: false }
    else if (this.#take('?<!')) look = { behind: true, negate: true }
    else if (this.#take('?<'))
      this.#skipPast('>') // a named group: the name does not matter here
    else if (this.#peek() === '?') throw new PatternRefusal('has a group modifier ((?i: …)), which the debugger does not read')
    const body = this.#alternation()
    if (!this.#take(')')) throw new PatternRefusal(`cannot be read at character ${this.#at + 1}`)
    return look === undefined ? body : { kind: 'look', ...look, body }
  }

  // `[` was read: the class up to its first unescaped `]` (in `u` mode classes do not nest).
  #classRest(): string {
    const start = this.#at - 1
    while (this.#at < this.#source.length) {
      const c = this.#next()
      if (c === '\\') this.#next()
      else if (c === ']') return this.#source.slice(start, this.#at)
    }
    throw new PatternRefusal('has a class without its "]"')
  }

  #escape(): PatternNode {
    const start = this.#at - 1
    const c = this.#next()
    if (c === 'b') return { kind: 'edge', at: 'word' }
    if (c === 'B') return { kind: 'edge', at: 'notWord' }
    if ((c >= '1' && c <= '9') || c === 'k') {
      throw new PatternRefusal(
        `has a backreference (${this.#source.slice(start, this.#at)}), which cannot be checked in linear time: write the alternatives out instead`,
      )
    }
    if (c === 'p' || c === 'P' || (c === 'u' && this.#peek() === '{')) this.#skipPast('}')
    else if (c === 'x') this.#at += 2
    else if (c === 'c') this.#at += 1
    else if (c === 'u') {
      this.#at += 4
      // A surrogate pair written as two escapes is one character in `u` mode.
      const lead = Number.parseInt(this.#source.slice(this.#at - 4, this.#at), 16)
      if (lead >= 0xd800 && lead <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(this.#source.slice(this.#at, this.#at + 6)))
        this.#at += 6
    }
    return { kind: 'char', source: this.#source.slice(start, this.#at) }
  }

  #quantified(atom: PatternNode): PatternNode {
    const c = this.#peek()
    let min: number
    let max: number
    if (c === '*' || c === '+' || c === '?') {
      this.#at++
      ;[min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1]
    } else if (c === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.#source.slice(this.#at, this.#at + 40))
      if (match === null) return atom
      this.#at += match[0].length
      min = Number(match[1])
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3])
    } else return atom
    this.#take('?') // lazy or greedy: the same strings match
    return { kind: 'repeat', body: atom, min, max }
  }

  #next(): string {
    const c = String.fromCodePoint(this.#source.codePointAt(this.#at) ?? 0)
    this.#at += c.length
    return c
  }

  #peek(): string | undefined {
    return this.#source[this.#at]
  }

  #take(text: string): boolean {
    if (!this.#source.startsWith(text, this.#at)) return false
    this.#at += text.length
    return true
  }

  #skipPast(end: string): void {
    const i = this.#source.indexOf(end, this.#at)
    this.#at = i === -1 ? this.#source.length : i + 1
  }
}
