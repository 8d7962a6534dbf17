import { ConsentError, ValidationError } from '../core/errors'
import { describeValue } from '../core/describe'
import type { MessageType } from '../core/types'

/**
 * How consent is applied: `'stamp'` writes the request's consent into each message's
 * `context.consent.categoryPreferences` (the shape Segment's Consent Management reads) and sends
 * every message; `'enforce'` stamps too, and withholds a message whose categories are not all
 * consented (its outcome is a {@link ConsentError}; it is never queued or sent).
 */
export type ConsentMode = 'stamp' | 'enforce'

/** Consent categories (your consent manager's names: `Analytics`, `Advertising` …) to whether the user consents. */
export type CategoryPreferences = Record<string, boolean>

/**
 * The categories a message belongs to, for `'enforce'`: a map of track event names to their
 * categories, where `'*'` holds the categories of every other message (other track events, and
 * identify, page, screen, group, alias); or a function of the message's type and event name.
 * A message with no category is always sent.
 */
export type ConsentCategories =
  Readonly<Record<string, readonly string[]>> | ((type: MessageType, event: string | undefined) => readonly string[])

/** A request's consent, resolved: what is stamped, and what is enforced. */
export interface Consent {
  /** See {@link ConsentMode}. */
  readonly mode: ConsentMode
  /** What is stamped as `context.consent.categoryPreferences`, and what `'enforce'` decides on. */
  readonly categoryPreferences: Readonly<CategoryPreferences>
  /** True when the request carried `Sec-GPC: 1` (Global Privacy Control). */
  readonly gpc: boolean
  /** The categories that `Sec-GPC: 1` holds off: your "sale or sharing" categories, when the request carried it. */
  readonly withdrawnByGpc: readonly string[]
  /** For `'enforce'`: the categories of a message. */
  readonly categories?: ConsentCategories | undefined
}

/** What decides a request's consent: see {@link resolveConsent}. */
export interface ConsentOptions<Request = unknown> {
  /** See {@link ConsentMode}. Required: stamping and enforcing are each a choice. */
  mode: ConsentMode
  /**
   * Reads the user's choices from the request (your consent manager's cookie or header);
   * `undefined` when the request has none. Its categories override `defaults`.
   */
  read?: ((request: Request) => CategoryPreferences | undefined) | undefined
  /**
   * The preferences before anything is read: `{ Analytics: false, Advertising: false }` where
   * tracking needs an opt-in, `true` where the user may opt out.
   * @defaultValue `{}`
   */
  defaults?: CategoryPreferences | undefined
  /**
   * The categories that amount to the "sale or sharing" of personal data: with `Sec-GPC: 1` they
   * are `false`, whatever `read` and `defaults` say.
   * @defaultValue `[]`
   */
  saleOrSharing?: readonly string[] | undefined
  /** For `'enforce'` (required there): the categories of each message. See {@link ConsentCategories}. */
  categories?: ConsentCategories | undefined
}

/**
 * A request's consent from the options: `defaults`, then what `read` finds, then `Sec-GPC: 1`
 * (`gpc`) turning off the `saleOrSharing` categories.
 * @throws ValidationError naming the option when the options are not valid, or when `read` returns
 * something that is not an object of booleans.
 */
export function resolveConsent<Request>(options: ConsentOptions<Request>, request: Request, gpc: boolean): Consent {
  const { mode, read, defaults, saleOrSharing = [], categories } = options
  if (mode !== 'stamp' && mode !== 'enforce')
    throw new ValidationError('consent.mode', `must be 'stamp' or 'enforce', got ${describeValue(mode)}`, 'consent')
  if (mode === 'enforce' && categories === undefined) {
    throw new ValidationError('consent.categories', "is required with mode 'enforce': the categories each message belongs to", 'consent')
  }
  const preferences: CategoryPreferences = { ...checkPreferences('consent.defaults', defaults) }
  if (read !== undefined) Object.assign(preferences, checkPreferences('consent.read', read(request)))
  const withdrawn: string[] = []
  if (gpc) {
    for (const category of saleOrSharing) {
      withdrawn.push(category)
      preferences[category] = false
    }
  }
  return Object.freeze({ mode, categoryPreferences: Object.freeze(preferences), gpc, withdrawnByGpc: Object.freeze(withdrawn), categories })
}

function checkPreferences(field: string, value: unknown): CategoryPreferences | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(field, `must be an object of category names to booleans, got ${describeValue(value)}`, 'consent')
  }
  for (const [category, given] of Object.entries(value)) {
    if (typeof given !== 'boolean')
      throw new ValidationError(`${field}.${category}`, `must be true or false, got ${describeValue(given)}`, 'consent')
  }
  return value as CategoryPreferences
}

/** The categories of a message. */
export function categoriesOf(categories: ConsentCategories, type: MessageType, event: string | undefined): readonly string[] {
  if (typeof categories === 'function') return categories(type, event)
  const own = type === 'track' && event !== undefined && Object.hasOwn(categories, event) ? categories[event] : undefined
  return own ?? (Object.hasOwn(categories, '*') ? categories['*'] : [])
}

/**
 * Whether consent withholds a message (`'enforce'` only): the error it is refused with, naming the
 * categories not consented, or `undefined` when it may be sent.
 */
export function withheldFor(consent: Consent, type: MessageType, event: unknown): ConsentError | undefined {
  if (consent.mode !== 'enforce' || consent.categories === undefined) return undefined
  const name = typeof event === 'string' ? event : undefined
  const categories = categoriesOf(consent.categories, type, name)
  const preferences = consent.categoryPreferences
  // The usual case, every category consented, allocates nothing.
  let allowed = true
  for (const category of categories) allowed &&= preferences[category] === true
  if (allowed) return undefined
  const missing = categories.filter((category) => preferences[category] !== true)
  const byGpc = missing.some((category) => consent.withdrawnByGpc.includes(category))
  const what = name === undefined ? type : `${type} "${name}"`
  return new ConsentError(
    `${what}: withheld for consent: the request has not consented to ${missing.map((c) => `"${c}"`).join(', ')}${byGpc ? ' (Sec-GPC: 1 opted out of sale or sharing)' : ''}; the message was not sent`,
    missing,
    byGpc,
  )
}
