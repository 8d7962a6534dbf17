/** One segment file, this process's own or one taken over from a process that died. */
export interface Segment {
  readonly id: number
  readonly path: string
  readonly ackPath: string
  /** This process's own (it writes to it) or taken over (it only reads it and acks its records). */
  readonly own: boolean
  /** The descriptor appended to (own, while it is the active one); -1 else. */
  fd: number
  ackFd: number
  /** Bytes in the file. */
  size: number
  /** Records in it that will get an outcome here (own: all written so far; taken over: those without one). */
  total: number
  /** Of those, how many have it. */
  done: number
  /** No record will be added. */
  sealed: boolean
  /** Taken over: the records of the file when it was read (the ordinal of the next one). */
  frames?: number
  /** Taken over: the ordinals that had their outcome in an earlier process. */
  acked: ReadonlySet<number> | undefined
}

/** Whatever a write to the disk could not do: the segment is left as it was before it. */
export class SpoolWriteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
