import { parsePattern, PatternRefusal, type PatternNode } from './pattern-parse'

/**
 * The most states a pattern may compile to, lookarounds included: counted repetitions are written
 * out (`[a-z]{2,64}` is about 130 states), and nested counts multiply (`(x{100}){100}` would be 10,000).
 */
export const MAX_PATTERN_STATES = 5_000
/**
 * The most steps the patterns may cost for one message (each string's characters × its pattern's
 * states, summed): a string past that is not checked against its pattern (the debugger reports
 * only what it is sure of). A 32 KB message against Zod's email pattern (25 states) costs
 * about 800,000; a plan's pathological patterns stop here, at about 0.2 s of work.
 */
export const MAX_PATTERN_STEPS = 4_000_000

/** What is left of a message's {@link MAX_PATTERN_STEPS}. */
export interface PatternBudget {
  steps: number
}

/** A new message's budget. */
export function newPatternBudget(): PatternBudget {
  return { steps: MAX_PATTERN_STEPS }
}

/** A pattern compiled for {@link matchesPattern}. */
export interface CompiledPattern {
  readonly program: Program
  /** States of the pattern and of its lookarounds: what one character of input costs at most. */
  readonly size: number
}

interface Program {
  readonly states: State[]
  readonly start: number
  readonly looks: Look[]
}

interface Look {
  readonly program: Program
  readonly behind: boolean
  readonly negate: boolean
}

type State =
  | { readonly op: 'char'; readonly test: RegExp; readonly next: number }
  | { op: 'split'; next: number[] }
  | { readonly op: 'edge'; readonly at: 'start' | 'end' | 'word' | 'notWord'; readonly next: number }
  | { readonly op: 'look'; readonly look: number; readonly next: number }
  | { readonly op: 'match' }

/**
 * Compiles a pattern (read with the `u` flag) to an automaton that runs in time linear in the
 * input, whatever its quantifiers: `^([a-z0-9]+[-._]?)+@example\.com$` costs the same per
 * character as `^[a-z]+$`, where a backtracking engine takes seconds on 38 letters.
 * @throws PatternRefusal naming the rule: a backreference, a group modifier, too many states.
 */
export function compilePattern(source: string): CompiledPattern {
  const budget = { states: 0 }
  const program = compile(parsePattern(source), budget)
  return { program, size: budget.states }
}

/**
 * Whether `value` has a match of the pattern (like `RegExp.prototype.test`), or `undefined` when
 * what is left of the budget cannot pay for it (the most it can cost is taken before it runs).
 */
export function matchesPattern(pattern: CompiledPattern, value: string, budget: PatternBudget = newPatternBudget()): boolean | undefined {
  const chars = [...value]
  const cost = (chars.length + 1) * pattern.size
  if (cost > budget.steps) return undefined
  budget.steps -= cost
  return scan(pattern.program, chars, false, true).some(Boolean)
}

function compile(node: PatternNode, budget: { states: number }): Program {
  const states: State[] = []
  const looks: Look[] = []
  const add = (state: State): number => {
    if (++budget.states > MAX_PATTERN_STATES) {
      throw new PatternRefusal(`is too large to check (more than ${MAX_PATTERN_STATES} states: counted repetitions are written out)`)
    }
    return states.push(state) - 1
  }
  const build = (n: PatternNode, next: number): number => {
    switch (n.kind) {
      case 'char':
        return add({ op: 'char', test: new RegExp(`^(?:${n.source})$`, 'u'), next })
      case 'seq':
        return n.items.reduceRight((after, item) => build(item, after), next)
      case 'alt':
        return add({ op: 'split', next: n.options.map((option) => build(option, next)) })
      case 'edge':
        return add({ op: 'edge', at: n.at, next })
      case 'look':
        // A lookahead is found by reading its body backwards from every later position.
        looks.push({ program: compile(n.behind ? n.body : reversed(n.body), budget), behind: n.behind, negate: n.negate })
        return add({ op: 'look', look: looks.length - 1, next })
      case 'repeat':
        return buildRepeat(n.body, n.min, n.max, next)
    }
  }
  const buildRepeat = (body: PatternNode, min: number, max: number, next: number): number => {
    let entry = next
    if (max === Infinity) {
      const loop = add({ op: 'split', next: [] })
      ;(states[loop] as { next: number[] }).next = [build(body, loop), next]
      entry = loop
    } else {
      for (let i = min; i < max; i++) entry = add({ op: 'split', next: [build(body, entry), next] })
    }
    for (let i = 0; i < min; i++) entry = build(body, entry)
    return entry
  }
  const match = add({ op: 'match' })
  return { states, start: build(node, match), looks }
}

function reversed(node: PatternNode): PatternNode {
  switch (node.kind) {
    case 'seq':
      return { kind: 'seq', items: node.items.map(reversed).reverse() }
    case 'alt':
      return { kind: 'alt', options: node.options.map(reversed) }
    case 'repeat':
      return { ...node, body: reversed(node.body) }
    default:
      return node // characters, edges and lookarounds hold at a position, whichever way it is read
  }
}

/**
 * Runs the automaton over the characters from every start position at once (one set of states per
 * position, never a backtrack). Forwards, `found[j]` says a match ends at j; backwards (a reversed
 * body), `found[i]` says one starts at i. `firstOnly` stops at the first match.
 */
function scan(program: Program, chars: readonly string[], backward: boolean, firstOnly: boolean): boolean[] {
  const n = chars.length
  const tables = program.looks.map((look) => lookTable(look, chars))
  const found = new Array<boolean>(n + 1).fill(false)
  const mark = new Int32Array(program.states.length).fill(-1)
  let current: number[] = []
  let at = backward ? n : 0
  for (let step = 0; ; step++) {
    close(program, program.start, at, step, chars, tables, current, mark, found)
    if ((firstOnly && found[at]) || step === n) return found
    const c = backward ? chars[at - 1] : chars[at]
    const nextAt = backward ? at - 1 : at + 1
    const next: number[] = []
    for (const i of current) {
      const state = program.states[i] as { test: RegExp; next: number }
      if (state.test.test(c)) close(program, state.next, nextAt, step + 1, chars, tables, next, mark, found)
    }
    current = next
    at = nextAt
  }
}

// The positions where a lookaround holds.
function lookTable(look: Look, chars: readonly string[]): boolean[] {
  const found = scan(look.program, chars, !look.behind, false)
  return look.negate ? found.map((holds) => !holds) : found
}

// Adds `from` and every state reached from it without reading a character (explicit stack: a
// long chain of optional states must not overflow the call stack).
function close(
  program: Program,
  from: number,
  at: number,
  step: number,
  chars: readonly string[],
  tables: readonly boolean[][],
  list: number[],
  mark: Int32Array,
  found: boolean[],
): void {
  const stack = [from]
  while (stack.length > 0) {
    const i = stack.pop() as number
    if (mark[i] === step) continue
    mark[i] = step
    const state = program.states[i]
    if (state.op === 'char') list.push(i)
    else if (state.op === 'match') found[at] = true
    else if (state.op === 'split') stack.push(...state.next)
    else if (state.op === 'look' ? tables[state.look][at] : edgeHolds(state.at, at, chars)) stack.push(state.next)
  }
}

function edgeHolds(edge: 'start' | 'end' | 'word' | 'notWord', at: number, chars: readonly string[]): boolean {
  if (edge === 'start') return at === 0
  if (edge === 'end') return at === chars.length
  const isBoundary = isWordChar(chars[at - 1]) !== isWordChar(chars[at])
  return edge === 'word' ? isBoundary : !isBoundary
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z0-9_]$/.test(c)
}
