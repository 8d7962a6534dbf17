// Regression: the exit hook marked itself installed before calling `process.on`. Where that call
// threw (workerd with nodejs_compat before 2025-09-15: "process.on is not a function"), the hook
// was never installed, and every first enqueue of an instance threw into the caller's track().
type ExitHook = typeof import('../../src/queue/exit-hook')

function freshExitHook(): ExitHook {
  let hook: ExitHook | undefined
  jest.isolateModules(() => {
    hook = jest.requireActual<ExitHook>('../../src/queue/exit-hook')
  })
  return hook as ExitHook
}

describe('the exit hook', () => {
  let before: NodeJS.BeforeExitListener[]
  beforeEach(() => {
    before = process.listeners('beforeExit')
  })
  afterEach(() => {
    jest.restoreAllMocks()
    for (const listener of process.listeners('beforeExit')) {
      if (!before.includes(listener)) process.removeListener('beforeExit', listener as () => void)
    }
  })

  it('does not throw when process.on throws, and installs itself once process.on works', () => {
    const hook = freshExitHook()
    const on = jest.spyOn(process, 'on').mockImplementationOnce(() => {
      throw new TypeError('process.on is not a function')
    })
    const drainable = { drainBeforeExit: jest.fn() }
    expect(() => hook.holdsWork(drainable)).not.toThrow()
    expect(process.listeners('beforeExit')).toEqual(before)

    hook.holdsWork(drainable) // tries again
    expect(on).toHaveBeenCalledTimes(2)
    const added = process.listeners('beforeExit').filter((l) => !before.includes(l))
    expect(added).toHaveLength(1)
    added[0](0)
    expect(drainable.drainBeforeExit).toHaveBeenCalledTimes(1)

    hook.holdsWork(drainable) // installed: not again
    expect(on).toHaveBeenCalledTimes(2)
    hook.releasesWork(drainable)
    added[0](0)
    expect(drainable.drainBeforeExit).toHaveBeenCalledTimes(1)
  })

  it('does not throw where there is no process.on (Workers, the Edge Runtime)', () => {
    const hook = freshExitHook()
    const descriptor = Object.getOwnPropertyDescriptor(process, 'on')
    Object.defineProperty(process, 'on', { value: undefined, configurable: true, writable: true })
    try {
      expect(() => hook.holdsWork({ drainBeforeExit: () => undefined })).not.toThrow()
    } finally {
      if (descriptor) Object.defineProperty(process, 'on', descriptor)
      else delete (process as { on?: unknown }).on
    }
    expect(process.listeners('beforeExit')).toEqual(before)
  })
})
