import { ValidationError } from '../core/errors'
import { checkPlanPatterns } from './plan-patterns'
import { schemaViolations, type PlanViolation } from './plan-schema'
import { isJsonObject } from './verdict'

/** A tracking plan as the collector reads it: the JSON of `plan.toJSONSchema()` (see `eventrail/plan`). */
export interface CollectorPlan {
  readonly allowUnplanned: boolean
  readonly events: Readonly<Record<string, unknown>>
  readonly traits: unknown
  readonly groupTraits: unknown
}

/**
 * Reads the JSON Schema of a tracking plan (`plan.toJSONSchema()`, written to a file for
 * `eventrail dev --plan FILE`). Its patterns are compiled here, once.
 * @throws ValidationError naming what is missing, or a pattern that cannot be checked in linear time.
 */
export function readCollectorPlan(input: unknown, where: string): CollectorPlan {
  const json = ownJson(input, where)
  if (!isJsonObject(json) || json['x-eventrail-plan'] !== 1) {
    throw new ValidationError(
      'plan',
      "must be the JSON Schema of a tracking plan: the JSON of plan.toJSONSchema() from 'eventrail/plan'",
      where,
    )
  }
  const definitions = json.definitions
  if (!isJsonObject(definitions) || !isJsonObject(definitions.events)) {
    throw new ValidationError('plan', 'must have "definitions.events": event name → JSON Schema of its properties', where)
  }
  checkPlanPatterns(definitions, 'plan.definitions', where)
  return Object.freeze({
    allowUnplanned: json.allowUnplanned === true,
    events: definitions.events,
    traits: definitions.traits,
    groupTraits: definitions.groupTraits,
  })
}

/**
 * The plan as JSON, read once, every object of it on no prototype: no keyword of a schema (`pattern`,
 * `type`, `required`…), no event and no `traits` can come from a polluted Object.prototype.
 */
function ownJson(input: unknown, where: string): unknown {
  let text: string | undefined
  try {
    text = JSON.stringify(input)
  } catch (err) {
    throw new ValidationError('plan', `must be JSON (${err instanceof Error ? err.message : String(err)})`, where)
  }
  if (text === undefined) return undefined
  return JSON.parse(text, (_key, value: unknown) =>
    isJsonObject(value) ? Object.assign(Object.create(null) as Record<string, unknown>, value) : value,
  ) as unknown
}

/** How a message breaks the plan: an empty list when it does not (or the plan says nothing of its type). Pure. */
export function planViolations(plan: CollectorPlan, type: string | null, message: Readonly<Record<string, unknown>>): PlanViolation[] {
  if (type === 'track') {
    const event = message.event
    if (typeof event !== 'string' || !Object.hasOwn(plan.events, event)) {
      return plan.allowUnplanned ? [] : [{ path: 'event', message: 'is not an event of the tracking plan' }]
    }
    return schemaViolations(plan.events[event], message.properties ?? {}, 'properties')
  }
  const schema = type === 'identify' ? plan.traits : type === 'group' ? plan.groupTraits : undefined
  return schema === undefined ? [] : schemaViolations(schema, message.traits ?? {}, 'traits')
}
