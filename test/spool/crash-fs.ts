import * as nodeFs from 'node:fs'
import type { SpoolFs } from '../../src/durability/spool/files'

// Issue 32: a file system for the spool (its SpoolFs) that keeps what was written (the page cache)
// apart from what a power loss keeps (the durable state): a file's bytes are durable once
// `fdatasync`/`fsync` of it returned; a directory's entries once `fsync` of the directory did (each
// directory on its own: strict POSIX, no journal that commits a rename in both at once). The
// power is cut at a chosen operation (`cutAt`): in the middle of a write (part of it reaches the
// cache), before a sync returns, at a rename, at an unlink. `image()` is then the disk as a new
// boot finds it: durable entries and durable bytes, plus what writeback happened to flush of
// each file (a random prefix of its unsynced bytes, or zeros where the size went ahead of the data).
// A failing sync (the chance `syncFailure`) behaves as Linux does: the error is returned once,
// and the unsynced pages are marked clean: they never reach the disk, even after a later good sync.

/** A seeded random number generator (mulberry32): the same seed, the same run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface FileNode {
  kind: 'file'
  data: Buffer
  /** Bytes on the disk. */
  durable: Buffer
  /** Bytes before this offset that a failed sync dropped: they never reach the disk. */
  dropped: number
  mtimeMs: number
}
interface DirNode {
  kind: 'dir'
  entries: Map<string, Node>
  durable: Map<string, Node>
  mtimeMs: number
}
type Node = FileNode | DirNode

/** The power went: every call fails from now on. */
export class PowerCut extends Error {
  readonly code = 'EIO'
}

const fail = (code: string, what: string): Error => Object.assign(new Error(`${code}: ${what}`), { code })
const uid = process.getuid?.() ?? 0

export interface CrashFsOptions {
  /** The operation (counted from 1: writes, syncs, renames, unlinks, creations) at which the power goes; never when 0. */
  cutAt?: number
  /** The chance that one `fdatasync`/`fsync` fails (EIO). */
  syncFailure?: number
  random: () => number
}

export class CrashFs {
  readonly #root: DirNode
  readonly #fds = new Map<number, { node: Node; append: boolean; path: string }>()
  readonly #random: () => number
  readonly #cutAt: number
  readonly #syncFailure: number
  #nextFd = 100
  /** Operations so far. */
  ops = 0
  /** Syncs that failed. */
  failedSyncs = 0
  cut = false

  constructor(options: CrashFsOptions, root?: DirNode) {
    this.#random = options.random
    this.#cutAt = options.cutAt ?? 0
    this.#syncFailure = options.syncFailure ?? 0
    this.#root = root ?? { kind: 'dir', entries: new Map(), durable: new Map(), mtimeMs: Date.now() }
  }

  /** Cuts the power now (if it is still on). */
  cutNow(): void {
    this.cut = true
  }

  // One operation that changes the disk: the power may go right before it.
  #op(what = ''): void {
    if (this.cut) throw new PowerCut('the power is off')
    this.ops += 1
    // EVENTRAIL_CRASH_TRACE=1: every operation, to follow a failing seed.
    if (process.env.EVENTRAIL_CRASH_TRACE === '1') process.stdout.write(`op ${this.ops} ${what}\n`)
    if (this.ops === this.#cutAt) {
      this.cut = true
      throw new PowerCut('the power went')
    }
  }

  #check(): void {
    if (this.cut) throw new PowerCut('the power is off')
  }

  #lookup(path: string): { parent: DirNode; name: string; node: Node | undefined } {
    const names = path.split('/').filter((n) => n !== '' && n !== '.')
    let dir = this.#root
    for (const name of names.slice(0, -1)) {
      const next = dir.entries.get(name)
      if (next === undefined) throw fail('ENOENT', path)
      if (next.kind !== 'dir') throw fail('ENOTDIR', path)
      dir = next
    }
    const name = names[names.length - 1] ?? ''
    return { parent: dir, name, node: name === '' ? dir : dir.entries.get(name) }
  }

  #stat(node: Node) {
    const isFile = node.kind === 'file'
    const size = isFile ? node.data.length : 4096
    return {
      isFile: () => isFile,
      isDirectory: () => !isFile,
      isSymbolicLink: () => false,
      uid,
      mode: isFile ? 0o100600 : 0o40700,
      size,
      mtimeMs: node.mtimeMs,
      mtime: new Date(node.mtimeMs),
    }
  }

  // The sync of a node: the error (once) or its bytes or entries made durable.
  #sync(node: Node, done: (err: Error | null) => void, path = ''): void {
    if (this.cut) return void setImmediate(() => done(new PowerCut('the power is off')))
    if (this.#random() < this.#syncFailure) {
      this.failedSyncs += 1
      if (node.kind === 'file') node.dropped = node.data.length
      return void setImmediate(() => done(fail('EIO', 'sync failed')))
    }
    // The sync takes effect when it returns: the power may go before.
    setImmediate(() => {
      try {
        this.#op(`sync ${node.kind} ${path}`)
      } catch (err) {
        return done(err as Error)
      }
      if (node.kind === 'file') {
        const data = Buffer.from(node.data)
        // Pages a failed sync marked clean never reached the disk: what the disk had is there.
        if (node.dropped > node.durable.length) data.fill(0, node.durable.length, Math.min(node.dropped, data.length))
        node.durable = data
      } else node.durable = new Map(node.entries)
      done(null)
    })
  }

  /** The disk as a new boot finds it. */
  image(): CrashFs {
    const seen = new Set<Node>()
    const copyDir = (dir: DirNode): DirNode => {
      const out: DirNode = { kind: 'dir', entries: new Map(), durable: new Map(), mtimeMs: dir.mtimeMs }
      const names = [...dir.durable.keys()].sort(() => this.#random() - 0.5)
      for (const name of names) {
        const node = dir.durable.get(name) as Node
        // A directory whose rename was synced in one place and not the other is in one of them.
        if (seen.has(node) && node.kind === 'dir') continue
        seen.add(node)
        const copy = node.kind === 'dir' ? copyDir(node) : this.#fileAfterCut(node)
        out.entries.set(name, copy)
        out.durable.set(name, copy)
      }
      return out
    }
    return new CrashFs({ random: this.#random }, copyDir(this.#root))
  }

  #fileAfterCut(file: FileNode): FileNode {
    let data = Buffer.from(file.durable)
    const from = Math.max(file.durable.length, file.dropped)
    if (file.data.length > from && this.#random() < 0.5) {
      // Writeback flushed some of the unsynced bytes (a prefix), or only the size (zeros).
      const upTo = from + Math.floor(this.#random() * (file.data.length - from + 1))
      const tail = this.#random() < 0.8 ? file.data.subarray(from, upTo) : Buffer.alloc(upTo - from)
      data = Buffer.concat([data.subarray(0, Math.min(data.length, from)), Buffer.alloc(Math.max(0, from - data.length)), tail])
    }
    return { kind: 'file', data, durable: Buffer.from(data), dropped: 0, mtimeMs: file.mtimeMs }
  }

  /** The spool's view of it. */
  get fs(): SpoolFs {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the calls are plain functions, as node:fs has them
    const self = this
    const api = {
      constants: nodeFs.constants,
      openSync(path: string, flags: number): number {
        const { O_CREAT, O_EXCL, O_APPEND, O_DIRECTORY } = nodeFs.constants
        self.#check()
        const { parent, name, node } = self.#lookup(path)
        let target = node
        if (target === undefined) {
          if (!(flags & O_CREAT)) throw fail('ENOENT', path)
          self.#op(`create ${path}`)
          target = { kind: 'file', data: Buffer.alloc(0), durable: Buffer.alloc(0), dropped: 0, mtimeMs: Date.now() }
          parent.entries.set(name, target)
        } else if (flags & O_CREAT && flags & O_EXCL) throw fail('EEXIST', path)
        if (target.kind === 'dir' && !(flags & O_DIRECTORY) && flags & nodeFs.constants.O_WRONLY) throw fail('EISDIR', path)
        const fd = self.#nextFd++
        self.#fds.set(fd, { node: target, append: (flags & O_APPEND) !== 0, path })
        return fd
      },
      closeSync(fd: number): void {
        if (!self.#fds.delete(fd)) throw fail('EBADF', 'close')
      },
      writeSync(fd: number, buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset): number {
        const open = self.#fds.get(fd)
        if (open === undefined || open.node.kind !== 'file') throw fail('EBADF', 'write')
        const file = open.node
        const bytes = Buffer.from(buffer.buffer, buffer.byteOffset + offset, length)
        try {
          self.#op(`write ${length}`)
        } catch (err) {
          // In the middle of a write: part of it reached the cache.
          file.data = Buffer.concat([file.data, bytes.subarray(0, Math.floor(self.#random() * length))])
          throw err
        }
        file.data = Buffer.concat([file.data, bytes])
        return length
      },
      readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
        self.#check()
        const open = self.#fds.get(fd)
        if (open === undefined || open.node.kind !== 'file') throw fail('EBADF', 'read')
        const n = Math.max(0, Math.min(length, open.node.data.length - position))
        open.node.data.copy(buffer, offset, position, position + n)
        return n
      },
      fstatSync(fd: number) {
        const open = self.#fds.get(fd)
        if (open === undefined) throw fail('EBADF', 'fstat')
        return self.#stat(open.node)
      },
      ftruncateSync(fd: number, length = 0): void {
        self.#op()
        const open = self.#fds.get(fd)
        if (open === undefined || open.node.kind !== 'file') throw fail('EBADF', 'ftruncate')
        open.node.data = open.node.data.subarray(0, length)
      },
      fdatasync(fd: number, done: (err: Error | null) => void): void {
        const open = self.#fds.get(fd)
        if (open === undefined) return void setImmediate(() => done(fail('EBADF', 'fdatasync')))
        self.#sync(open.node, done, open.path)
      },
      fsync(fd: number, done: (err: Error | null) => void): void {
        api.fdatasync(fd, done)
      },
      fsyncSync(fd: number): void {
        self.#op()
        const open = self.#fds.get(fd)
        if (open === undefined) throw fail('EBADF', 'fsync')
        if (open.node.kind === 'file') open.node.durable = Buffer.from(open.node.data)
      },
      mkdirSync(path: string, options?: { recursive?: boolean }): void {
        self.#check()
        const names = path.split('/').filter((n) => n !== '')
        let dir = self.#root
        for (let i = 0; i < names.length; i++) {
          const next = dir.entries.get(names[i])
          if (next !== undefined) {
            if (next.kind !== 'dir') throw fail('ENOTDIR', path)
            if (i === names.length - 1 && options?.recursive !== true) throw fail('EEXIST', path)
            dir = next
            continue
          }
          if (i < names.length - 1 && options?.recursive !== true) throw fail('ENOENT', path)
          self.#op()
          const made: DirNode = { kind: 'dir', entries: new Map(), durable: new Map(), mtimeMs: Date.now() }
          dir.entries.set(names[i], made)
          dir = made
        }
      },
      readdirSync(path: string) {
        self.#check()
        const { node } = self.#lookup(path)
        if (node === undefined) throw fail('ENOENT', path)
        if (node.kind !== 'dir') throw fail('ENOTDIR', path)
        return [...node.entries].map(([name, child]) => ({
          name,
          isFile: () => child.kind === 'file',
          isDirectory: () => child.kind === 'dir',
        }))
      },
      renameSync(from: string, to: string): void {
        self.#check()
        const a = self.#lookup(from)
        const b = self.#lookup(to)
        if (a.node === undefined) throw fail('ENOENT', from)
        if (b.node !== undefined && b.node.kind === 'dir') throw fail('EEXIST', to)
        self.#op(`rename ${from} ${to}`)
        a.parent.entries.delete(a.name)
        b.parent.entries.set(b.name, a.node)
      },
      unlinkSync(path: string): void {
        self.#check()
        const { parent, name, node } = self.#lookup(path)
        if (node === undefined) throw fail('ENOENT', path)
        self.#op(`unlink ${path}`)
        parent.entries.delete(name)
      },
      rmSync(path: string): void {
        self.#check()
        const { parent, name, node } = self.#lookup(path)
        if (node === undefined) return
        self.#op()
        parent.entries.delete(name)
      },
      statSync(path: string) {
        self.#check()
        const { node } = self.#lookup(path)
        if (node === undefined) throw fail('ENOENT', path)
        return self.#stat(node)
      },
      lstatSync(path: string) {
        return api.statSync(path)
      },
      utimesSync(path: string, _atime: Date, mtime: Date): void {
        self.#check()
        const { node } = self.#lookup(path)
        if (node === undefined) throw fail('ENOENT', path)
        node.mtimeMs = mtime.getTime()
      },
    }
    return api as unknown as SpoolFs
  }

  /** Puts a file on the disk (durable, as if written and synced long ago), with its directories. */
  put(path: string, data: Buffer): void {
    const names = path.split('/').filter((n) => n !== '')
    let dir = this.#root
    for (const name of names.slice(0, -1)) {
      let next = dir.entries.get(name)
      if (next === undefined) {
        next = { kind: 'dir', entries: new Map(), durable: new Map(), mtimeMs: Date.now() }
        dir.entries.set(name, next)
        dir.durable.set(name, next)
      }
      if (next.kind !== 'dir') throw fail('ENOTDIR', path)
      dir = next
    }
    const file: FileNode = { kind: 'file', data: Buffer.from(data), durable: Buffer.from(data), dropped: 0, mtimeMs: Date.now() }
    dir.entries.set(names[names.length - 1], file)
    dir.durable.set(names[names.length - 1], file)
  }

  /** Every file under `dir` with its bytes (in the cache), for the corruption tests. */
  files(dir = ''): Map<string, Buffer> {
    const out = new Map<string, Buffer>()
    const walk = (node: DirNode, path: string): void => {
      for (const [name, child] of node.entries) {
        if (child.kind === 'dir') walk(child, `${path}/${name}`)
        else out.set(`${path}/${name}`, child.data)
      }
    }
    const { node } = this.#lookup(dir)
    if (node?.kind === 'dir') walk(node, dir)
    return out
  }
}
