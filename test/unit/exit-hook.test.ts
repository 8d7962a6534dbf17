// Regression: the exit hook marked itself installed before calling `process.on`. Where that call
// threw (workerd with nodejs_compat before 2025-09-15: "process.on is not a function"), the hook
// was never installed, and every first enqueue of an instance threw into the caller's track().
type ExitHook = typeof import('../../src/platform/exit-hook')

function freshExitHook(): ExitHook {
  let hook: ExitHook | undefined
  jest.isolateModules(() => {
    hook = jest.requireActual<ExitHook>('../../src/platform/exit-hook')
  })
  return hook as ExitHook
}

describe('the exit hook', () => {
  let before: NodeJS.BeforeExitListener[]
  let beforeExit: NodeJS.ExitListener[]
  beforeEach(() => {
    before = process.listeners('beforeExit')
    beforeExit = process.listeners('exit')
  })
  afterEach(() => {
    jest.restoreAllMocks()
    for (const listener of process.listeners('beforeExit')) {
      if (!before.includes(listener)) process.removeListener('beforeExit', listener as () => void)
    }
    for (const listener of process.listeners('exit')) {
      if (!beforeExit.includes(listener)) process.removeListener('exit', listener as () => void)
    }
  })

  const idle = () => ({ drainBeforeExit: jest.fn(), queued: 0, inFlight: 0, sends: true })

  it('does not throw when process.on throws, and installs itself once process.on works', () => {
    const hook = freshExitHook()
    const on = jest.spyOn(process, 'on').mockImplementationOnce(() => {
      throw new TypeError('process.on is not a function')
    })
    const drainable = idle()
    expect(() => hook.holdsWork(drainable)).not.toThrow()
    expect(process.listeners('beforeExit')).toEqual(before)

    hook.holdsWork(drainable) // tries again: beforeExit, then exit
    expect(on).toHaveBeenCalledTimes(3)
    const added = process.listeners('beforeExit').filter((l) => !before.includes(l))
    expect(added).toHaveLength(1)
    added[0](0)
    expect(drainable.drainBeforeExit).toHaveBeenCalledTimes(1)

    hook.holdsWork(drainable) // installed: not again
    expect(on).toHaveBeenCalledTimes(3)
    hook.releasesWork(drainable)
    added[0](0)
    expect(drainable.drainBeforeExit).toHaveBeenCalledTimes(1)
  })

  it('does not throw where there is no process.on (Workers, the Edge Runtime)', () => {
    const hook = freshExitHook()
    const descriptor = Object.getOwnPropertyDescriptor(process, 'on')
    Object.defineProperty(process, 'on', { value: undefined, configurable: true, writable: true })
    try {
      expect(() => hook.holdsWork(idle())).not.toThrow()
    } finally {
      if (descriptor) Object.defineProperty(process, 'on', descriptor)
      else delete (process as { on?: unknown }).on
    }
    expect(process.listeners('beforeExit')).toEqual(before)
  })

  it('on exit, writes the count of undelivered messages of every instance once, and nothing when none', () => {
    const hook = freshExitHook()
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const a = { ...idle(), queued: 3, inFlight: 2 }
    const b = { ...idle(), queued: 1 }
    const disabled = { ...idle(), queued: 7, sends: false } // enable: false: nothing is lost
    hook.holdsWork(a)
    hook.holdsWork(b)
    hook.holdsWork(disabled)
    const onExit = process.listeners('exit').filter((l) => !beforeExit.includes(l))
    expect(onExit).toHaveLength(1)
    onExit[0](0)
    expect(write.mock.calls).toEqual([[hook.lostAtExitText(6)]])
    hook.releasesWork(a)
    hook.releasesWork(b)
    onExit[0](0)
    expect(write).toHaveBeenCalledTimes(1)
  })

  it('on exit, does not throw where stderr is missing or throws', () => {
    const hook = freshExitHook()
    hook.holdsWork({ ...idle(), queued: 1 })
    const onExit = process.listeners('exit').filter((l) => !beforeExit.includes(l))
    jest.spyOn(process.stderr, 'write').mockImplementation(() => {
      throw new Error('EPIPE')
    })
    expect(() => onExit[0](0)).not.toThrow()
    const descriptor = Object.getOwnPropertyDescriptor(process, 'stderr')
    Object.defineProperty(process, 'stderr', { value: undefined, configurable: true })
    try {
      expect(() => onExit[0](0)).not.toThrow()
    } finally {
      if (descriptor) Object.defineProperty(process, 'stderr', descriptor)
    }
  })
})
