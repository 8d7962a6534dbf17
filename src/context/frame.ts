import { ValidationError } from '../core/errors'
import { describeThrown, describeValue } from '../core/describe'
import type { AmbientFrame } from '../client/ambient'
import type { Snapshot } from '../message/snapshot'
import type { Context, Id, MessageType } from '../core/types'
import { withheldFor, type Consent } from './consent'

/** What a context gives the messages made inside it: see `withContext`. */
export interface ContextInput {
  /** The user's id, for messages that set no `userId` of their own. */
  userId?: Id
  /** The anonymous id (the browser's `ajs_anonymous_id`), for messages that set no `anonymousId` of their own. */
  anonymousId?: Id
  /**
   * Context fields (`ip`, `userAgent`, `locale`, `page`, `campaign` …): a message gets each field its
   * own `context` does not set (a field it sets replaces the context's field of the same name,
   * whole, as with the `context` option). Nested contexts merge objects field by field.
   */
  context?: Context
  /** The request's consent (`contextFromRequest` with a `consent` option makes it): stamped, and enforced in `'enforce'` mode. */
  consent?: Consent
}

/** A context as the messages inside it see it: the outer contexts' fields refined by the inner ones. */
export class ContextFrame implements AmbientFrame {
  readonly userId: Id | undefined
  readonly anonymousId: Id | undefined
  readonly consent: Consent | undefined
  /** The context fields, frozen, shared by the messages that no plugin may change. */
  readonly context: Readonly<Record<string, unknown>> | undefined
  // The same as JSON text: a message that plugins may change gets its own copy.
  readonly #json: string | undefined

  private constructor(
    userId: Id | undefined,
    anonymousId: Id | undefined,
    context: Record<string, unknown> | undefined,
    consent: Consent | undefined,
  ) {
    this.userId = userId
    this.anonymousId = anonymousId
    this.consent = consent
    const stamped = consent === undefined ? context : { ...context, consent: { categoryPreferences: { ...consent.categoryPreferences } } }
    this.#json = stamped === undefined ? undefined : JSON.stringify(stamped)
    this.context = stamped === undefined ? undefined : deepFreeze(JSON.parse(this.#json as string) as Record<string, unknown>)
  }

  /**
   * The frame of `input` inside `outer`: ids and consent replace the outer ones when given;
   * context fields merge (objects field by field, anything else replaced).
   * @throws ValidationError naming the field when `input` is not valid.
   */
  static of(input: ContextInput, outer: ContextFrame | undefined, where: string): ContextFrame {
    if (typeof input !== 'object' || input === null)
      throw new ValidationError('context', `must be an object such as { userId, anonymousId, context }, got ${describeValue(input)}`, where)
    const userId = checkId(input.userId, 'userId', where) ?? outer?.userId
    const anonymousId = checkId(input.anonymousId, 'anonymousId', where) ?? outer?.anonymousId
    const own = checkContext(input.context, where)
    const base = outer?.context === undefined ? undefined : (JSON.parse(outer.#json as string) as Record<string, unknown>)
    if (base !== undefined && input.consent !== undefined) delete base.consent
    const context = own === undefined ? base : base === undefined ? own : mergeDeep(base, own)
    return new ContextFrame(userId, anonymousId, context, input.consent ?? outer?.consent)
  }

  /** Fills a call's message: consent first (a withheld message is refused), then ids, then context. */
  apply(type: MessageType, snapshot: Snapshot, fresh: boolean): Error | undefined {
    if (this.consent !== undefined) {
      const withheld = withheldFor(this.consent, type, snapshot.event)
      if (withheld !== undefined) return withheld
    }
    if (snapshot.userId === undefined && this.userId !== undefined) snapshot.userId = this.userId
    if (type !== 'alias' && snapshot.anonymousId === undefined && this.anonymousId !== undefined) snapshot.anonymousId = this.anonymousId
    const shared = this.context
    if (shared !== undefined) {
      const ours = fresh ? (JSON.parse(this.#json as string) as Record<string, unknown>) : shared
      const own = snapshot.context
      snapshot.context = typeof own === 'object' && own !== null ? { ...ours, ...own } : ours
    }
    return undefined
  }
}

function checkId(value: unknown, field: string, where: string): Id | undefined {
  if (value === undefined || value === null) return undefined
  if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))) return value
  throw new ValidationError(field, `must be a non-empty string or a finite number, got ${describeValue(value)}`, where)
}

function checkContext(value: unknown, where: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('context', `must be an object such as { ip, userAgent, page }, got ${describeValue(value)}`, where)
  }
  if (Object.hasOwn(value, 'library')) throw new ValidationError('context', 'must not set "library" (the client sets it)', where)
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>
  } catch (err) {
    throw new ValidationError('context', `must be serializable as JSON (${describeThrown(err)})`, where)
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function mergeDeep(base: Record<string, unknown>, own: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(own)) {
    if (key === '__proto__') continue
    const outer = base[key]
    base[key] = isPlainObject(outer) && isPlainObject(value) ? mergeDeep(outer, value) : value
  }
  return base
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}
