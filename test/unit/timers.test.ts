import { setUnrefTimeout } from '../../src/platform/timers'

// Regression: `setUnrefTimeout` used to call `handle.unref()` before returning the timer, so a
// host whose `unref` throws (workerd with nodejs_compat before 2026-02-10) or is missing (workerd
// without it, the Edge Runtime: a timer is a number) threw out of the call, and the timer, started
// already, could never be cancelled: it leaked and fired later.
describe('setUnrefTimeout', () => {
  const realSetTimeout = globalThis.setTimeout
  const realClearTimeout = globalThis.clearTimeout
  afterEach(() => jest.restoreAllMocks())

  function timersWhoseUnrefThrows(): NodeJS.Timeout[] {
    const started: NodeJS.Timeout[] = []
    jest.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      const handle = realSetTimeout(fn, ms)
      handle.unref = () => {
        throw new TypeError('unref is not a function')
      }
      handle.ref = () => {
        throw new TypeError('ref is not a function')
      }
      started.push(handle)
      return handle
    }) as typeof setTimeout)
    return started
  }

  it('returns a timer that can be cancelled when unref() throws: it never fires', async () => {
    const started = timersWhoseUnrefThrows()
    const fn = jest.fn()
    const timer = setUnrefTimeout(fn, 5)
    expect(started).toHaveLength(1)
    expect(() => timer.ref()).not.toThrow()
    expect(() => timer.unref()).not.toThrow()
    timer.cancel()
    await new Promise((resolve) => realSetTimeout(resolve, 30))
    expect(fn).not.toHaveBeenCalled()
  })

  it('still fires when unref() throws and nobody cancels it', async () => {
    timersWhoseUnrefThrows()
    const fired = new Promise<string>((resolve) => setUnrefTimeout(() => resolve('fired'), 1))
    await expect(fired).resolves.toBe('fired')
  })

  it('works where a timer is a number without unref (Workers, the Edge Runtime)', async () => {
    const ids = new Map<number, NodeJS.Timeout>()
    jest.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      const id = ids.size + 1
      ids.set(id, realSetTimeout(fn, ms))
      return id
    }) as unknown as typeof setTimeout)
    const clear = jest.spyOn(globalThis, 'clearTimeout').mockImplementation((id) => realClearTimeout(ids.get(id as unknown as number)))
    const fn = jest.fn()
    const timer = setUnrefTimeout(fn, 5)
    expect(() => timer.ref()).not.toThrow()
    timer.cancel()
    expect(clear).toHaveBeenCalledWith(1)
    await new Promise((resolve) => realSetTimeout(resolve, 30))
    expect(fn).not.toHaveBeenCalled()
  })

  it('unrefs a Node timer, and ref() makes it hold the process', () => {
    const started: NodeJS.Timeout[] = []
    jest.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      const handle = realSetTimeout(fn, ms)
      started.push(handle)
      return handle
    }) as typeof setTimeout)
    const timer = setUnrefTimeout(() => undefined, 60_000)
    expect(started[0].hasRef()).toBe(false)
    timer.ref()
    expect(started[0].hasRef()).toBe(true)
    timer.unref()
    expect(started[0].hasRef()).toBe(false)
    timer.cancel()
  })
})
