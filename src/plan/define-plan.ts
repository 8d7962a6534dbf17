import { ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'
import { fieldOf, ownField, ownOptions } from '../core/own-options'
import type { Traits } from '../core/types'
import { RESOLVED_PLAN, type ResolvedPlan } from './resolved'
import type { StandardSchemaV1, StandardSchemaV1InferInput } from './standard-schema'

/** What `definePlan` takes: a Standard Schema per event, and optionally for identify and group traits. */
export interface PlanDefinition {
  /** Event name → the schema of its properties. */
  readonly events: Readonly<Record<string, StandardSchemaV1>>
  /** The schema of `identify` traits. */
  readonly traits?: StandardSchemaV1
  /** The schema of `group` traits. */
  readonly groupTraits?: StandardSchemaV1
  /**
   * Whether a track event the plan does not name is fine (`true`) or a violation. With `true`, the
   * client's event types are loose (any name), since any name may be sent.
   * @defaultValue false
   */
  readonly allowUnplanned?: boolean
}

/** The event catalog of a plan: event name → the input type of its schema. */
export type EventsOf<D extends PlanDefinition> = { [K in keyof D['events'] & string]: StandardSchemaV1InferInput<D['events'][K]> }

/** The traits type of a plan's `traits` or `groupTraits` schema: its input type, or `Traits` without one. */
export type TraitsOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1InferInput<S> extends object
    ? StandardSchemaV1InferInput<S>
    : Traits
  : Traits

/** The JSON Schema of a plan: what `eventrail dev --plan FILE` reads. */
export interface PlanJSONSchema {
  readonly $schema: string
  readonly $comment: string
  /** `1`: the version of this document's shape. */
  readonly 'x-eventrail-plan': 1
  readonly allowUnplanned: boolean
  readonly definitions: {
    readonly events: Readonly<Record<string, Record<string, unknown>>>
    readonly traits?: Record<string, unknown>
    readonly groupTraits?: Record<string, unknown>
  }
}

/**
 * A tracking plan: the client's types (`new Analytics(key, { plan })` infers its event catalog and
 * traits from it) and the run-time check of every track, identify and group call.
 * @typeParam E - the event catalog. @typeParam U - identify traits. @typeParam G - group traits.
 */
export interface TrackingPlan<E extends object = Record<string, Traits>, U extends object = Traits, G extends object = Traits> {
  /** The event names the plan defines. */
  readonly events: readonly string[]
  /**
   * The plan as JSON Schema (draft-07 unless told), for `eventrail dev --plan FILE` or a plan
   * registry. Every schema must implement Standard JSON Schema (`~standard.jsonSchema`: Zod 4 does;
   * wrap Valibot schemas with `toStandardJsonSchema` from `@valibot/to-json-schema`).
   * @throws ValidationError naming the event whose schema cannot be converted.
   */
  toJSONSchema(options?: { readonly target?: 'draft-07' | 'draft-2020-12' }): PlanJSONSchema
  /** Types only: never set at run time. */
  readonly '~types'?: { readonly events: E; readonly traits: U; readonly groupTraits: G }
}

/**
 * Defines a tracking plan from Standard Schema schemas (Zod, Valibot, ArkType …).
 * @throws ValidationError naming the event or field whose schema is not a Standard Schema.
 * @example
 * ```ts
 * import { z } from 'zod'
 * import { definePlan } from 'eventrail/plan'
 *
 * export const plan = definePlan({
 *   events: { 'Order Completed': z.object({ orderId: z.string(), total: z.number() }) },
 *   traits: z.object({ email: z.string().optional() }),
 * })
 * const analytics = new Analytics('WRITE_KEY', { plan }) // track() is typed from the plan
 * ```
 */
export function definePlan<const D extends PlanDefinition>(
  definition: D,
): TrackingPlan<
  D['allowUnplanned'] extends true ? Record<string, Traits> : EventsOf<D>,
  TraitsOf<D['traits']>,
  TraitsOf<D['groupTraits']>
> {
  if (typeof definition !== 'object' || definition === null)
    throw new ValidationError('definition', `must be an object, got ${describeValue(definition)}`, 'definePlan')
  // Own fields only, each read once: a polluted Object.prototype cannot add a schema or allowUnplanned.
  const { events, traits, groupTraits, allowUnplanned } = ownOptions(definition, 'definition', 'definePlan')
  if (typeof events !== 'object' || events === null)
    throw new ValidationError('events', 'must be an object: event name → schema', 'definePlan')
  const ownEvents = ownOptions(events, 'events', 'definePlan')
  const map = new Map<string, StandardSchemaV1>()
  for (const name of Object.keys(ownEvents)) map.set(name, checkSchema(ownEvents[name], `events["${name}"]`))
  if (allowUnplanned !== undefined && typeof allowUnplanned !== 'boolean')
    throw new ValidationError('allowUnplanned', 'must be a boolean', 'definePlan')
  const resolved: ResolvedPlan = Object.freeze({
    events: map,
    traits: traits === undefined ? undefined : checkSchema(traits, 'traits'),
    groupTraits: groupTraits === undefined ? undefined : checkSchema(groupTraits, 'groupTraits'),
    allowUnplanned: allowUnplanned ?? false,
  })
  const plan = {
    events: Object.freeze([...map.keys()]),
    toJSONSchema: (options?: { readonly target?: 'draft-07' | 'draft-2020-12' }) =>
      planJSONSchema(
        resolved,
        (isObject(options) ? (ownField(options, 'target') as 'draft-07' | 'draft-2020-12' | undefined) : undefined) ?? 'draft-07',
      ),
  }
  Object.defineProperty(plan, RESOLVED_PLAN, { value: resolved })
  return Object.freeze(plan)
}

function checkSchema(schema: unknown, field: string): StandardSchemaV1 {
  // A schema's fields may come from its class (Zod 3's "~standard" is a getter), never from Object.prototype.
  const props = typeof schema === 'object' && schema !== null ? fieldOf(schema, '~standard') : undefined
  if (typeof props !== 'object' || props === null || fieldOf(props, 'version') !== 1 || typeof fieldOf(props, 'validate') !== 'function') {
    throw new ValidationError(field, 'must be a Standard Schema v1 (a schema of Zod 3.24+, Valibot 1, ArkType 2 …)', 'definePlan')
  }
  return schema as StandardSchemaV1
}

const SCHEMA_URIS = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

function planJSONSchema(plan: ResolvedPlan, target: 'draft-07' | 'draft-2020-12'): PlanJSONSchema {
  const events: Record<string, Record<string, unknown>> = {}
  for (const [name, schema] of plan.events) events[name] = toJSONSchema(schema, `events["${name}"]`, target)
  const definitions: { events: typeof events; traits?: Record<string, unknown>; groupTraits?: Record<string, unknown> } = { events }
  if (plan.traits !== undefined) definitions.traits = toJSONSchema(plan.traits, 'traits', target)
  if (plan.groupTraits !== undefined) definitions.groupTraits = toJSONSchema(plan.groupTraits, 'groupTraits', target)
  return {
    $schema: SCHEMA_URIS[target],
    $comment: "An eventrail tracking plan: definitions.events holds the JSON Schema of each event's properties.",
    'x-eventrail-plan': 1,
    allowUnplanned: plan.allowUnplanned,
    definitions,
  }
}

function toJSONSchema(schema: StandardSchemaV1, field: string, target: string): Record<string, unknown> {
  const converter = schema['~standard'].jsonSchema
  if (converter === undefined || typeof converter.input !== 'function') {
    throw new ValidationError(
      field,
      `has no JSON Schema: its library (${schema['~standard'].vendor}) does not implement Standard JSON Schema (for Valibot, wrap the schema with toStandardJsonSchema from @valibot/to-json-schema)`,
      'toJSONSchema',
    )
  }
  const json = { ...converter.input({ target }) }
  delete json.$schema
  return json
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}
