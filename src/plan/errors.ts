import { EventrailError, ValidationError, brandError } from '../core/errors'

/** One way a message breaks the tracking plan. */
export interface PlanIssue {
  /** Where: `properties.total`, `traits.email`, or `event` for an event the plan does not name. */
  readonly path: string
  /** What is wrong, in the schema library's words. */
  readonly message: string
}

/**
 * A message does not match the tracking plan (`planMode` `'drop'` or `'throw'`). `field` is the
 * first issue's path; `issues` lists them all.
 */
export class PlanViolationError extends ValidationError {
  override name = 'PlanViolationError'

  static {
    brandError(this, 'PlanViolationError')
  }
  /** The track event's name, or `undefined` for identify and group. */
  readonly event: string | undefined
  /** Every issue found. */
  readonly issues: readonly PlanIssue[]

  constructor(where: string, event: string | undefined, issues: readonly PlanIssue[]) {
    const first = issues[0] ?? { path: 'message', message: 'does not match the tracking plan' }
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more: ${issues.slice(1).map(formatIssue).join('; ')})` : ''
    super(first.path, `breaks the tracking plan: ${first.message}${more}`, where)
    this.event = event
    this.issues = issues
  }
}

function formatIssue(issue: PlanIssue): string {
  return `"${issue.path}" ${issue.message}`
}

/**
 * A schema of the tracking plan failed to check a message: its `~standard.validate` threw, or
 * returned something that is not a Standard Schema result. The plan's fault, not the caller's
 * input: never thrown from the call. In `planMode` `'report'` the message is sent anyway
 * (`sentAnyway`) and the error goes to `error` listeners and `errorHandler`; in `'drop'` and
 * `'throw'` the message is not sent and the error is its outcome (its callback, else
 * `errorHandler`). `cause` holds what the schema threw.
 */
export class PlanSchemaError extends EventrailError {
  override name = 'PlanSchemaError'

  static {
    brandError(this, 'PlanSchemaError')
  }
  /** The track event's name, or `undefined` for identify and group. */
  readonly event: string | undefined
  /** The plan's schema that failed: `events["Order Completed"]`, `traits` or `groupTraits`. */
  readonly schema: string
  /** Whether the message was sent anyway (`planMode: 'report'`). */
  readonly sentAnyway: boolean

  constructor(where: string, event: string | undefined, schema: string, failure: string, sentAnyway: boolean, options?: ErrorOptions) {
    const outcome = sentAnyway ? 'the message was sent unchecked (planMode "report")' : 'the message was not sent'
    super(`${where}: the tracking plan's schema ${schema} ${failure}, so the message could not be checked; ${outcome}`, options)
    this.event = event
    this.schema = schema
    this.sentAnyway = sentAnyway
  }
}
