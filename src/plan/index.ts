/**
 * Tracking plans: `import { definePlan } from 'eventrail/plan'`. One definition, with the schema
 * library you already use (any Standard Schema: Zod, Valibot, ArkType …), gives the client's types,
 * the run-time check of every call and the JSON Schema for `eventrail dev --plan`.
 * @module eventrail/plan
 */
export { definePlan } from './define-plan'
export type { PlanDefinition, EventsOf, TraitsOf, TrackingPlan, PlanJSONSchema } from './define-plan'
export { PlanSchemaError, PlanViolationError } from './errors'
export type { PlanIssue } from './errors'
export type { PlanMode } from './check'
export type {
  StandardSchemaV1,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaV1Issue,
  StandardSchemaV1Types,
  StandardSchemaV1InferInput,
  StandardJSONSchemaV1Converter,
} from './standard-schema'
