import { Analytics, ValidationError, type MessageType } from '../../src'

// deliver.* and the callback form refuse the same hostile input with the same error type.

const throwingTrap = (): never => {
  throw new Error('trap')
}

const hostile: Array<[string, () => unknown]> = [
  [
    'a Proxy whose every trap throws',
    () =>
      new Proxy(
        {},
        {
          get: throwingTrap,
          getPrototypeOf: throwingTrap,
          ownKeys: throwingTrap,
          has: throwingTrap,
          getOwnPropertyDescriptor: throwingTrap,
        },
      ),
  ],
  ['a Proxy whose ownKeys throws', () => new Proxy({ userId: 'u', event: 'e' }, { ownKeys: throwingTrap })],
  [
    'an object whose messageId getter throws a Symbol',
    () => ({
      userId: 'u',
      event: 'e',
      get messageId(): string {
        // A thrown Symbol is the point of the case: the client must not assume an Error.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw Symbol('boom')
      },
    }),
  ],
]

describe.each(hostile)('%s', (_name, make) => {
  it.each<MessageType>(['identify', 'track', 'page', 'screen', 'group', 'alias'])(
    '%s: deliver.* resolves with the ValidationError that the callback form gets',
    async (type) => {
      const analytics = new Analytics('k', { enable: false })
      const byCallback = await new Promise<Error | undefined>((resolve) =>
        (analytics[type] as (m: unknown, cb: (e?: Error) => void) => void)(make(), resolve),
      )
      const outcome = await (analytics.deliver[type] as (m: unknown) => Promise<{ delivered: boolean; error?: Error }>)(make())
      expect(byCallback).toBeInstanceOf(ValidationError)
      expect(outcome.delivered).toBe(false)
      expect(outcome.error).toBeInstanceOf(ValidationError)
      expect(outcome.error?.message).toBe(byCallback?.message)
      await analytics.closeAndFlush()
    },
  )
})
