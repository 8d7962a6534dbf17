import { matchesPattern, newPatternBudget, type PatternBudget } from './pattern-match'
import { patternOf } from './plan-patterns'
import { describeJson, isJsonObject } from './verdict'

/** One way a message breaks the tracking plan, as the debugger shows it. */
export interface PlanViolation {
  /** Where: `properties.total`, `traits.email`, or `event`. */
  readonly path: string
  /** The rule broken, in words. */
  readonly message: string
}

type Schema = Readonly<Record<string, unknown>>

const MAX_VIOLATIONS = 20

/**
 * Checks a JSON value against a JSON Schema (draft-07 or 2020-12), for the debugger: the keywords
 * a tracking plan's schemas use (`type`, `properties`, `required`, `additionalProperties`, `items`,
 * `enum`, `const`, `minimum`/`maximum` and their exclusive forms, `minLength`/`maxLength`,
 * `pattern` (in linear time: see `pattern-match.ts`), `minItems`/`maxItems`, `anyOf`, `oneOf`, `allOf`). Other keywords (`$ref`, `format`
 * …) are not checked: the debugger only ever reports what it is sure of. Pure.
 */
export function schemaViolations(
  schema: unknown,
  value: unknown,
  path: string,
  budget: PatternBudget = newPatternBudget(),
): PlanViolation[] {
  const found: PlanViolation[] = []
  check(schema, value, path, found, budget)
  return found.slice(0, MAX_VIOLATIONS)
}

function check(schema: unknown, value: unknown, path: string, found: PlanViolation[], budget: PatternBudget): void {
  if (schema === false) return void found.push({ path, message: 'is not allowed by the plan' })
  if (!isJsonObject(schema) || found.length >= MAX_VIOLATIONS) return
  const s = schema as Schema
  if (s.type !== undefined && !matchesType(s.type, value)) {
    return void found.push({ path, message: `must be ${typeNames(s.type)} (got ${describeJson(value)})` })
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => sameJson(option, value))) {
    found.push({
      path,
      message: `must be one of ${s.enum.map((option) => JSON.stringify(option)).join(', ')} (got ${JSON.stringify(value)})`,
    })
  }
  if (s.const !== undefined && !sameJson(s.const, value))
    found.push({ path, message: `must be ${JSON.stringify(s.const)} (got ${JSON.stringify(value)})` })
  if (typeof value === 'number') checkNumber(s, value, path, found)
  if (typeof value === 'string') checkString(s, value, path, found, budget)
  if (Array.isArray(value)) checkArray(s, value, path, found, budget)
  if (isJsonObject(value)) checkObject(s, value, path, found, budget)
  checkCombinations(s, value, path, found, budget)
}

function checkNumber(s: Schema, value: number, path: string, found: PlanViolation[]): void {
  if (typeof s.minimum === 'number' && value < s.minimum) found.push({ path, message: `must be at least ${s.minimum} (got ${value})` })
  if (typeof s.maximum === 'number' && value > s.maximum) found.push({ path, message: `must be at most ${s.maximum} (got ${value})` })
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    found.push({ path, message: `must be more than ${s.exclusiveMinimum} (got ${value})` })
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    found.push({ path, message: `must be less than ${s.exclusiveMaximum} (got ${value})` })
}

function checkString(s: Schema, value: string, path: string, found: PlanViolation[], budget: PatternBudget): void {
  const length = [...value].length
  if (typeof s.minLength === 'number' && length < s.minLength)
    found.push({ path, message: `must be at least ${s.minLength} characters (got ${length})` })
  if (typeof s.maxLength === 'number' && length > s.maxLength)
    found.push({ path, message: `must be at most ${s.maxLength} characters (got ${length})` })
  // Never the native RegExp on a message's string: a pattern with nested quantifiers backtracks
  // for seconds on 40 letters. The compiled one runs in linear time (see pattern-match.ts); a
  // pattern that is unreadable, or a string past the message's budget of steps, is not checked.
  const pattern = patternOf(s)
  if (pattern !== null && matchesPattern(pattern, value, budget) === false)
    found.push({ path, message: `must match the pattern ${String(s.pattern)}` })
}

function checkArray(s: Schema, value: readonly unknown[], path: string, found: PlanViolation[], budget: PatternBudget): void {
  if (typeof s.minItems === 'number' && value.length < s.minItems)
    found.push({ path, message: `must have at least ${s.minItems} items (got ${value.length})` })
  if (typeof s.maxItems === 'number' && value.length > s.maxItems)
    found.push({ path, message: `must have at most ${s.maxItems} items (got ${value.length})` })
  if (isJsonObject(s.items)) value.forEach((item, i) => check(s.items, item, `${path}[${i}]`, found, budget))
}

function checkObject(
  s: Schema,
  value: Readonly<Record<string, unknown>>,
  path: string,
  found: PlanViolation[],
  budget: PatternBudget,
): void {
  const properties = isJsonObject(s.properties) ? s.properties : {}
  if (Array.isArray(s.required)) {
    for (const name of s.required)
      if (typeof name === 'string' && !Object.hasOwn(value, name)) found.push({ path: `${path}.${name}`, message: 'is required' })
  }
  for (const [name, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) check(properties[name], item, `${path}.${name}`, found, budget)
    else if (s.additionalProperties === false) found.push({ path: `${path}.${name}`, message: 'is not a property of the plan' })
    else if (isJsonObject(s.additionalProperties)) check(s.additionalProperties, item, `${path}.${name}`, found, budget)
  }
}

function checkCombinations(s: Schema, value: unknown, path: string, found: PlanViolation[], budget: PatternBudget): void {
  if (Array.isArray(s.allOf)) for (const part of s.allOf) check(part, value, path, found, budget)
  const passing = (options: unknown[]): number =>
    options.filter((option) => schemaViolations(option, value, path, budget).length === 0).length
  if (Array.isArray(s.anyOf) && passing(s.anyOf) === 0)
    found.push({ path, message: `must match one of the ${s.anyOf.length} forms the plan allows (anyOf)` })
  if (Array.isArray(s.oneOf) && passing(s.oneOf) !== 1)
    found.push({ path, message: `must match exactly one of the ${s.oneOf.length} forms the plan allows (oneOf)` })
}

function matchesType(type: unknown, value: unknown): boolean {
  return Array.isArray(type) ? type.some((t) => isOfType(t, value)) : isOfType(type, value)
}

function isOfType(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isJsonObject(value)
    case 'array':
      return Array.isArray(value)
    case 'integer':
      return Number.isInteger(value)
    case 'null':
      return value === null
    case 'string':
    case 'number':
    case 'boolean':
      return typeof value === type
    default:
      return true
  }
}

function typeNames(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map(String)
  return names.map((name) => (name === 'null' ? 'null' : /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`)).join(' or ')
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
