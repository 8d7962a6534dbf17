import { describeThrown, describeValue } from '../core/describe'
import type { Snapshot } from '../message/snapshot'
import type { MessageType } from '../core/types'
import { PlanSchemaError, PlanViolationError, type PlanIssue } from './errors'
import type { ResolvedPlan } from './resolved'
import type { StandardSchemaV1 } from './standard-schema'

/** What a message that breaks the plan does: see the `planMode` option. */
export type PlanMode = 'off' | 'report' | 'drop' | 'throw'

/**
 * The plan's verdict on one message: nothing (it matches, or the plan does not cover it), the
 * violation, or the schema's own failure (it threw, or its result is not a Standard Schema result).
 */
export type PlanVerdict = PlanViolationError | PlanSchemaError | undefined

/**
 * Checks the caller's message (its snapshot, validated) against the plan: a track's properties
 * against its event's schema, identify and group traits against theirs. Only the verdict is used:
 * the message keeps the caller's properties, whatever the schema's output (some strip keys).
 * A schema that validates asynchronously cannot be waited for on the call: `onAsync` hears of it
 * and the message goes unchecked. Never throws: whatever the schema does (throw, return a
 * malformed result, a result whose fields throw) is a PlanSchemaError (`sendsAnyway`: the mode
 * sends the message all the same).
 */
export function checkAgainstPlan(
  plan: ResolvedPlan,
  type: MessageType,
  message: Snapshot,
  onAsync: (what: string) => void,
  sendsAnyway: boolean,
): PlanVerdict {
  let schema: StandardSchemaV1 | undefined
  let value: unknown
  let field: string
  let event: string | undefined
  if (type === 'track') {
    event = message.event as string
    schema = plan.events.get(event)
    if (schema === undefined) {
      if (plan.allowUnplanned) return undefined
      return new PlanViolationError(`track "${event}"`, event, [{ path: 'event', message: 'is not an event of the tracking plan' }])
    }
    value = message.properties
    field = 'properties'
  } else if (type === 'identify' || type === 'group') {
    schema = type === 'identify' ? plan.traits : plan.groupTraits
    if (schema === undefined) return undefined
    value = message.traits
    field = 'traits'
  } else return undefined
  try {
    const issues = issuesOf(schema['~standard'].validate(value ?? {}), field)
    if (issues === ASYNC) {
      onAsync(event === undefined ? type : `event "${event}"`)
      return undefined
    }
    return issues === undefined ? undefined : new PlanViolationError(where(type, event), event, issues)
  } catch (err) {
    const name = event !== undefined ? `events[${JSON.stringify(event)}]` : type === 'identify' ? 'traits' : 'groupTraits'
    const failure = err instanceof MalformedResult ? err.message : `threw ${describeThrown(err)}`
    const cause = err instanceof MalformedResult ? undefined : err
    return new PlanSchemaError(where(type, event), event, name, failure, sendsAnyway, cause === undefined ? undefined : { cause })
  }
}

function where(type: MessageType, event: string | undefined): string {
  return event === undefined ? type : `track "${event}"`
}

const ASYNC = Symbol('async')

// A result that is no Standard Schema result: said as what the schema "returned".
class MalformedResult extends Error {}

// The issues of a schema's result, read once each: none (it matches), or ASYNC for a promise.
// Throws what reading the result throws, or a MalformedResult.
function issuesOf(result: unknown, field: string): readonly PlanIssue[] | undefined | typeof ASYNC {
  if (typeof result !== 'object' || result === null) throw malformed(result)
  const then = (result as { then?: unknown }).then
  if (typeof then === 'function') {
    // Only synchronous schemas are checked on the call; a later rejection must not go unhandled.
    then.call(result, noop, noop)
    return ASYNC
  }
  const issues = (result as { issues?: unknown }).issues
  if (issues === undefined) return undefined
  if (!Array.isArray(issues)) throw malformed(result)
  if (issues.length === 0) return undefined
  return issues.map((issue: unknown) => toPlanIssue(field, issue, result))
}

function toPlanIssue(field: string, issue: unknown, result: unknown): PlanIssue {
  if (typeof issue !== 'object' || issue === null) throw malformed(result)
  const { message, path: segments } = issue as { message?: unknown; path?: unknown }
  if (message === undefined || (segments !== undefined && !Array.isArray(segments))) throw malformed(result)
  let path = field
  for (const segment of (segments ?? []) as unknown[]) {
    const key = typeof segment === 'object' && segment !== null ? (segment as { key?: unknown }).key : segment
    path += typeof key === 'number' ? `[${key}]` : `.${typeof key === 'symbol' ? key.toString() : String(key)}`
  }
  return { path, message: typeof message === 'string' ? message : describeThrown(message) }
}

function malformed(result: unknown): MalformedResult {
  return new MalformedResult(`returned ${describeValue(result)} (expected { value } or { issues: [{ message, path? }] })`)
}

function noop(): void {}

/**
 * The default mode: `'throw'` under `NODE_ENV=test` (a broken call fails its test), `'report'`
 * elsewhere, and where the environment cannot be read; never `'drop'`.
 */
export function defaultPlanMode(): PlanMode {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    return env?.NODE_ENV === 'test' ? 'throw' : 'report'
  } catch {
    // Deno without --allow-env throws on the read: not a test run that we can tell of.
    return 'report'
  }
}
