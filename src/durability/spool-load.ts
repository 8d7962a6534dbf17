import { ValidationError } from '../core/errors'
import type * as SpoolModule from './spool/index'

declare const __filename: string | undefined
declare const require: ((id: string) => unknown) | undefined

/** The spool module: `dist/spool.cjs` beside the build that loads it, or the source under a test runner. */
export type SpoolModuleType = typeof SpoolModule

let loaded: SpoolModuleType | undefined

/**
 * Loads the spool's code on its first use, synchronously: a client with a spool writes a message
 * to disk before `track()` returns, from its very first call, so the code cannot arrive later with
 * `import()`. The build is CommonJS (`import 'eventrail'` loads it too), so it `require`s the one
 * file beside it (it depends on nothing else of the library); under a test runner that compiles
 * the source, the source. `import 'eventrail'` alone never loads it.
 * @throws ValidationError where there is no file beside the code to load (a bundle for Workers or
 *   the Edge Runtime, which has no `__filename`).
 */
export function loadSpoolModule(): SpoolModuleType {
  if (loaded !== undefined) return loaded
  const here = typeof __filename === 'string' ? __filename : undefined
  if (here === undefined || typeof require !== 'function') {
    throw new ValidationError('spool', 'needs a runtime with a file system and CommonJS modules (Node ≥ 22, Bun, Deno)', 'Analytics')
  }
  loaded = requireFrom(require, here.endsWith('.ts') ? './spool/index' : './spool.cjs')
  return loaded
}

// The name is a parameter: a bundler must not see (and bundle) the spool where it is not used.
function requireFrom(load: (id: string) => unknown, name: string): SpoolModuleType {
  return load(name) as SpoolModuleType
}
