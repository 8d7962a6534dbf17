/** A place at the gate: give it back when the attempt ends. */
export type Release = () => void

interface Waiter {
  readonly grant: (release: Release) => void
  readonly signal: AbortSignal
  readonly onAbort: () => void
}

/**
 * The sockets of the process-wide keep-alive pool, shared fairly between the instances that send
 * to one origin. An attempt takes a place before its timeout starts and gives it back when it
 * ends, so that no attempt ever waits inside the pool for a socket: its timeout never runs while
 * it waits (a request that timed out there could still reach the wire later, and its messages
 * arrive twice), and a multi-tenant process with one instance per write key does not starve one
 * tenant behind another's burst. Places go round-robin between instances, first come first
 * served within one.
 */
export class SocketGate {
  readonly #size: number
  readonly #queues = new Map<object, Waiter[]>()
  #taken = 0

  constructor(size: number) {
    this.#size = size
  }

  /** Resolves with a release once `owner` may start an attempt; rejects with `signal`'s reason when it aborts first. */
  acquire(owner: object, signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason as Error)
    if (this.#taken < this.#size && this.#queues.size === 0) return Promise.resolve(this.#take())
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        signal,
        onAbort: () => {
          this.#remove(owner, waiter)
          reject(signal.reason as Error)
        },
      }
      signal.addEventListener('abort', waiter.onAbort, { once: true })
      const queue = this.#queues.get(owner)
      if (queue === undefined) this.#queues.set(owner, [waiter])
      else queue.push(waiter)
    })
  }

  #take(): Release {
    this.#taken += 1
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      this.#taken -= 1
      this.#grantNext()
    }
  }

  // The owner that waited longest for its turn goes next, and to the back of the line after.
  #grantNext(): void {
    while (this.#taken < this.#size && this.#queues.size > 0) {
      const [owner, queue] = this.#queues.entries().next().value as [object, Waiter[]]
      const waiter = queue.shift() as Waiter
      this.#queues.delete(owner)
      if (queue.length > 0) this.#queues.set(owner, queue)
      waiter.signal.removeEventListener('abort', waiter.onAbort)
      waiter.grant(this.#take())
    }
  }

  #remove(owner: object, waiter: Waiter): void {
    const queue = this.#queues.get(owner)
    if (queue === undefined) return
    const index = queue.indexOf(waiter)
    if (index !== -1) queue.splice(index, 1)
    if (queue.length === 0) this.#queues.delete(owner)
  }
}

const gates = new Map<string, SocketGate>()

/** The gate of one origin, shared by every instance of the process that sends there with the default transport. */
export function socketGateFor(origin: string, size: number): SocketGate {
  let gate = gates.get(origin)
  if (gate === undefined) gates.set(origin, (gate = new SocketGate(size)))
  return gate
}
