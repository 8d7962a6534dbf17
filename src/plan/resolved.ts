import type { StandardSchemaV1 } from './standard-schema'

/**
 * The key under which a plan made by `definePlan` holds what the client checks against. A
 * registered symbol, so that `eventrail/plan` and the client find each other across copies of
 * the library (two installed versions, a bundle beside the package). Not part of the public API.
 * @internal
 */
export const RESOLVED_PLAN: unique symbol = Symbol.for('eventrail.resolvedPlan') as never

/** A plan as the client checks against it: built once, by `definePlan`. */
export interface ResolvedPlan {
  readonly events: ReadonlyMap<string, StandardSchemaV1>
  readonly traits: StandardSchemaV1 | undefined
  readonly groupTraits: StandardSchemaV1 | undefined
  readonly allowUnplanned: boolean
}

/** The resolved plan of a value given as the `plan` option, or undefined when it is not one. */
export function resolvedPlanOf(value: unknown): ResolvedPlan | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  // definePlan sets it on the plan itself: never one of Object.prototype (a polluted prototype).
  return Object.hasOwn(value, RESOLVED_PLAN) ? (value as { [RESOLVED_PLAN]?: ResolvedPlan })[RESOLVED_PLAN] : undefined
}
