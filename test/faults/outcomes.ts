import type { Callback } from '../../src'

/** The outcome of one message as its callback saw it. */
export interface Outcome {
  calls: number
  error: Error | undefined
}

/**
 * Hands out callbacks that record how often each message's callback ran and with what error,
 * so that a test can check "exactly once" and "received or errored" message by message.
 */
export class Outcomes {
  readonly #byId = new Map<string, Outcome>()
  #settled = 0

  /** A callback for the message `id`. */
  callback(id: string): Callback {
    const outcome: Outcome = { calls: 0, error: undefined }
    this.#byId.set(id, outcome)
    return (err) => {
      outcome.calls += 1
      if (outcome.calls === 1) this.#settled += 1
      outcome.error ??= err
    }
  }

  get(id: string): Outcome | undefined {
    return this.#byId.get(id)
  }

  /** Messages whose callback ran at least once. */
  get settled(): number {
    return this.#settled
  }

  get size(): number {
    return this.#byId.size
  }

  entries(): IterableIterator<[string, Outcome]> {
    return this.#byId.entries()
  }

  /** Ids whose callback ran other than exactly once. */
  notExactlyOnce(): string[] {
    return [...this.#byId].filter(([, o]) => o.calls !== 1).map(([id]) => id)
  }

  /** How many callbacks got an error of each name. */
  errorNames(): Record<string, number> {
    const names: Record<string, number> = {}
    for (const { error } of this.#byId.values()) if (error) names[error.name] = (names[error.name] ?? 0) + 1
    return names
  }
}

/** A track message with a known messageId, so that the server's records can be matched to callbacks. */
export function trackMessage(
  id: string,
  extra: Record<string, unknown> = {},
): { userId: string; event: string; messageId: string; properties: Record<string, unknown> } {
  return { userId: `user-${id}`, event: 'Fault Test', messageId: id, properties: { id, ...extra } }
}
