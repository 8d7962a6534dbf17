import type { Snapshot } from '../message/snapshot'
import type { MessageType } from '../types'
import { PlanViolationError, type PlanIssue } from './errors'
import type { ResolvedPlan } from './resolved'
import type { StandardSchemaV1, StandardSchemaV1Issue } from './standard-schema'

/** What a message that breaks the plan does: see the `planMode` option. */
export type PlanMode = 'off' | 'report' | 'drop' | 'throw'

/** The plan's verdict on one message: nothing (it matches, or the plan does not cover it), or the violation. */
export type PlanVerdict = PlanViolationError | undefined

/**
 * Checks the caller's message (its snapshot, validated) against the plan: a track's properties
 * against its event's schema, identify and group traits against theirs. Only the verdict is used:
 * the message keeps the caller's properties, whatever the schema's output (some strip keys).
 * A schema that validates asynchronously cannot be waited for on the call: `onAsync` hears of it
 * and the message goes unchecked.
 */
export function checkAgainstPlan(plan: ResolvedPlan, type: MessageType, message: Snapshot, onAsync: (what: string) => void): PlanVerdict {
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
  const result = schema['~standard'].validate(value ?? {})
  if (typeof (result as { then?: unknown }).then === 'function') {
    ;(result as Promise<unknown>).then(undefined, () => {})
    onAsync(event === undefined ? type : `event "${event}"`)
    return undefined
  }
  const issues = (result as { issues?: readonly StandardSchemaV1Issue[] }).issues
  if (issues === undefined || issues.length === 0) return undefined
  return new PlanViolationError(
    event === undefined ? type : `track "${event}"`,
    event,
    issues.map((issue) => toPlanIssue(field, issue)),
  )
}

function toPlanIssue(field: string, issue: StandardSchemaV1Issue): PlanIssue {
  let path = field
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    path += typeof key === 'number' ? `[${key}]` : `.${String(key)}`
  }
  return { path, message: String(issue.message) }
}

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
