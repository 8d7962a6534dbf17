/** Whether `promise` settled (resolved or rejected) within `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<'settled' | 'late'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)))
  try {
    return await Promise.race([
      promise.then(
        () => 'settled' as const,
        () => 'settled' as const,
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** Collects unhandled rejections and uncaught exceptions while the model runs. */
export function watchProcess(): { take(): string[]; stop(): void } {
  let seen: string[] = []
  const onRejection = (reason: unknown): void => void seen.push(`unhandled rejection: ${String(reason)}`)
  const onException = (err: unknown): void => void seen.push(`uncaught exception: ${String(err)}`)
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)
  return {
    take: () => {
      const out = seen
      seen = []
      return out
    },
    stop: () => {
      process.off('unhandledRejection', onRejection)
      process.off('uncaughtException', onException)
    },
  }
}
