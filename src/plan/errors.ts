import { ValidationError } from '../errors'

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
