import { ValidationError } from '../core/errors'
import { compilePattern, type CompiledPattern } from './pattern-match'
import { PatternRefusal } from './pattern-parse'
import { isJsonObject } from './verdict'

// Keywords whose values are data, not schemas: a `pattern` key inside them is not a pattern.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples'])

// Each schema's compiled `pattern`, or null when JavaScript cannot read it (it is then not checked).
const compiled = new WeakMap<object, CompiledPattern | null>()

/**
 * Compiles every `pattern` of a plan when it is loaded, so that a message costs linear time in
 * its length whatever the plan's patterns: a pattern that cannot be run so is refused here.
 * @throws ValidationError naming the pattern's JSON path (`plan.definitions.traits.properties.email.pattern`) and the rule.
 */
export function checkPlanPatterns(json: unknown, path: string, where: string): void {
  if (Array.isArray(json)) return json.forEach((item, i) => checkPlanPatterns(item, `${path}[${i}]`, where))
  if (!isJsonObject(json)) return
  if (typeof json.pattern === 'string') {
    try {
      patternOf(json, true)
    } catch (err) {
      if (!(err instanceof PatternRefusal)) throw err
      throw new ValidationError(
        `${path}.pattern`,
        `${err.message} (the pattern ${JSON.stringify(json.pattern)}; see "Patterns" in docs/tracking-plans.md)`,
        where,
      )
    }
  }
  for (const [key, value] of Object.entries(json)) {
    if (!DATA_KEYWORDS.has(key))
      checkPlanPatterns(value, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, where)
  }
}

/**
 * The compiled `pattern` of a schema (compiled once per schema object), or null when it is not
 * checked: JavaScript cannot read it, or it was refused (a plan that was loaded had none such).
 * @throws PatternRefusal when `isStrict` and the pattern cannot be run in linear time.
 */
export function patternOf(schema: Readonly<Record<string, unknown>>, isStrict = false): CompiledPattern | null {
  const known = compiled.get(schema)
  if (known !== undefined || typeof schema.pattern !== 'string') return known ?? null
  let pattern: CompiledPattern | null = null
  try {
    new RegExp(schema.pattern, 'u') // a pattern JavaScript cannot read is not checked
    pattern = compilePattern(schema.pattern)
  } catch (err) {
    if (isStrict && err instanceof PatternRefusal) throw err
  }
  compiled.set(schema, pattern)
  return pattern
}
