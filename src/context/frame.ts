import { ValidationError } from '../core/errors'
import { describeThrown, describeValue } from '../core/describe'
import type { AmbientFrame } from '../client/ambient'
import type { Snapshot } from '../message/snapshot'
import type { Context, Id, MessageType } from '../core/types'
import { withheldFor, type Consent } from './consent'

/** What a context gives the messages made inside it: see `withContext`. */
export interface ContextInput {
  /** The user's id, for messages that set no `userId` of their own. */
  userId?: Id | undefined
  /** The anonymous id (the browser's `ajs_anonymous_id`), for messages that set no `anonymousId` of their own. */
  anonymousId?: Id | undefined
  /**
   * Context fields (`ip`, `userAgent`, `locale`, `page`, `campaign` …): a message gets each field its
   * own `context` does not set (a field it sets replaces the context's field of the same name,
   * whole, as with the `context` option). Nested contexts merge objects field by field.
   */
  context?: Context | undefined
  /** The request's consent (`contextFromRequest` with a `consent` option makes it): stamped, and enforced in `'enforce'` mode. */
  consent?: Consent | undefined
}

/** A context as the messages inside it see it: the outer contexts' fields refined by the inner ones. */
export class ContextFrame implements AmbientFrame {
  readonly userId: Id | undefined
  readonly anonymousId: Id | undefined
  readonly consent: Consent | undefined
  // The context fields as JSON text (each frame's own, read once from the caller's objects), and
  // parsed on first use: shared by the messages that no plugin may change (nothing changes them
  // between the call and their serialization); a message that plugins may change gets its own copy.
  readonly #json: string | undefined
  #shared: Record<string, unknown> | undefined

  private constructor(userId: Id | undefined, anonymousId: Id | undefined, json: string | undefined, consent: Consent | undefined) {
    this.userId = userId
    this.anonymousId = anonymousId
    this.consent = consent
    this.#json = json
  }

  /** The context fields (a copy: changing it changes nothing), `undefined` when there are none. */
  get context(): Context | undefined {
    return this.#json === undefined ? undefined : (JSON.parse(this.#json) as Context)
  }

  /**
   * The frame of `input` inside `outer`: ids and consent replace the outer ones when given;
   * context fields merge (objects field by field, anything else replaced).
   * @throws ValidationError naming the field when `input` is not valid.
   */
  static of(input: ContextInput, outer: ContextFrame | undefined, where: string): ContextFrame {
    if (typeof input !== 'object' || input === null) {
      throw new ValidationError('context', `must be an object such as { userId, anonymousId, context }, got ${describeValue(input)}`, where)
    }
    const userId = checkId(input.userId, 'userId', where) ?? outer?.userId
    const anonymousId = checkId(input.anonymousId, 'anonymousId', where) ?? outer?.anonymousId
    const consent = input.consent ?? outer?.consent
    checkContext(input.context, where)
    const stamp = input.consent === undefined ? undefined : { categoryPreferences: input.consent.categoryPreferences }
    let json: string | undefined
    const outerJson = outer === undefined ? undefined : outer.#json
    if (outerJson === undefined) {
      const own = stamp === undefined ? input.context : { ...input.context, consent: stamp }
      json = own === undefined ? undefined : jsonOf(own, where)
    } else if (input.context === undefined && stamp === undefined) {
      json = outerJson
    } else {
      const base = JSON.parse(outerJson) as Record<string, unknown>
      if (stamp !== undefined) delete base.consent
      const own = JSON.parse(jsonOf(stamp === undefined ? input.context : { ...input.context, consent: stamp }, where)) as Record<
        string,
        unknown
      >
      json = JSON.stringify(mergeDeep(base, own))
    }
    return new ContextFrame(userId, anonymousId, json, consent)
  }

  /** Fills a call's message: consent first (a withheld message is refused), then ids, then context. */
  apply(type: MessageType, snapshot: Snapshot, fresh: boolean): Error | undefined {
    if (this.consent !== undefined) {
      const withheld = withheldFor(this.consent, type, snapshot.event)
      if (withheld !== undefined) return withheld
    }
    if (snapshot.userId === undefined && this.userId !== undefined) snapshot.userId = this.userId
    if (type !== 'alias' && snapshot.anonymousId === undefined && this.anonymousId !== undefined) snapshot.anonymousId = this.anonymousId
    const json = this.#json
    if (json !== undefined) {
      const ours = fresh ? (JSON.parse(json) as Record<string, unknown>) : (this.#shared ??= JSON.parse(json) as Record<string, unknown>)
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

function checkContext(value: unknown, where: string): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('context', `must be an object such as { ip, userAgent, page }, got ${describeValue(value)}`, where)
  }
  if (Object.hasOwn(value, 'library')) throw new ValidationError('context', 'must not set "library" (the client sets it)', where)
}

function jsonOf(value: unknown, where: string): string {
  try {
    return JSON.stringify(value)
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
