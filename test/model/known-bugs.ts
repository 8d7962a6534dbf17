import type { Avoidable } from './generator'

/** A bug of today's code that the model finds, and what a run avoids so that `npm test` stays green. */
export interface KnownBug {
  readonly bug: string
  /** The configurations it shows in. */
  readonly configs: readonly string[]
  /**
   * What makes it show (server modes, or a close timeout shorter than a plugin): the default runs
   * of those configurations leave it out. Without it (it shows whatever the sequence does), those
   * configurations run only when strict.
   */
  readonly avoid?: readonly Avoidable[]
}

/**
 * Found by the model's soak; reproduced in findings.test.ts. With EVENTRAIL_MODEL_STRICT_ALL=1
 * nothing is avoided. Remove an entry once its bug is fixed.
 */
export const KNOWN_BUGS: readonly KnownBug[] = []

/** Whether EVENTRAIL_MODEL_STRICT_ALL=1 asks for every configuration and mode, known bugs included. */
export const STRICT_ALL = process.env.EVENTRAIL_MODEL_STRICT_ALL === '1'

/** Whether `config` has a known bug whatever the server does: it runs only when strict. */
export function strictOnly(config: string): boolean {
  return KNOWN_BUGS.some((b) => b.avoid === undefined && b.configs.includes(config))
}

/** What a run of `config` leaves out: nothing when strict. */
export function avoided(config: string, strict: boolean): ReadonlySet<Avoidable> {
  if (strict) return new Set()
  return new Set(KNOWN_BUGS.filter((b) => b.configs.includes(config)).flatMap((b) => b.avoid ?? []))
}
