import { fstatSync, type Stats } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'

/** A file the import writes, and the flag that names it. */
export interface OutputFile {
  readonly flag: string
  readonly path: string
}

/**
 * Why the files the import would write cannot be those: one of them is the input (by any name: a
 * relative path, `./` or `..` in it, a symbolic or a hard link; or standard input redirected from
 * it), or two of them are the same file. Files are compared by device and inode, not by name.
 * Undefined when they are fine. `stdinFd`: the descriptor of standard input, when the input is `-`.
 */
export async function findOutputClash(input: string, outputs: readonly OutputFile[], stdinFd?: number): Promise<string | undefined> {
  const inputInfo = input === '-' ? statOfDescriptor(stdinFd) : await stat(input).catch(() => undefined)
  const inputName = input === '-' ? 'standard input (redirected from that file)' : `the input file ${input}`
  for (const output of outputs) {
    const info = await stat(output.path).catch(() => undefined)
    if (inputInfo !== undefined && info !== undefined && isSame(info, inputInfo)) {
      return `${output.flag} ${output.path} is ${inputName}: writing it would destroy what is being imported. Give another path`
    }
  }
  for (let i = 0; i < outputs.length; i++) {
    for (let j = i + 1; j < outputs.length; j++) {
      if (await isSameTarget(outputs[i].path, outputs[j].path)) {
        return `${outputs[i].flag} ${outputs[i].path} and ${outputs[j].flag} ${outputs[j].path} are the same file: give each its own path`
      }
    }
  }
  return undefined
}

function isSame(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino
}

// Standard input as a file: only a regular file can be written over (a pipe or a terminal cannot).
function statOfDescriptor(fd: number | undefined): Stats | undefined {
  if (fd === undefined) return undefined
  try {
    const info = fstatSync(fd)
    return info.isFile() ? info : undefined
  } catch {
    return undefined
  }
}

// Two paths that name the same file: the same inode when both exist, otherwise the same place
// once their directories are resolved.
async function isSameTarget(a: string, b: string): Promise<boolean> {
  const [infoA, infoB] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)])
  if (infoA !== undefined && infoB !== undefined) return isSame(infoA, infoB)
  if (infoA !== undefined || infoB !== undefined) return false
  return (await place(a)) === (await place(b))
}

async function place(path: string): Promise<string> {
  const dir = await realpath(dirname(path)).catch(() => resolve(dirname(path)))
  return join(dir, basename(path))
}
