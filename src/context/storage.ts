import { EventrailError } from '../core/errors'
import { nodeBuiltin } from '../platform/runtime'

/** The part of `AsyncLocalStorage` that contexts use. */
export interface AsyncStorage<T> {
  getStore(): T | undefined
  run<R>(store: T, fn: () => R): R
}

type AsyncStorageClass = new <T>() => AsyncStorage<T>

/**
 * The host's `AsyncLocalStorage`: a global one (Vercel's Edge Runtime provides it to edge
 * functions) or `node:async_hooks`' (Node, Bun, Deno, workerd with `nodejs_compat`), found without
 * an import a bundler could see; `undefined` where the host has none.
 */
export function findAsyncLocalStorage(): AsyncStorageClass | undefined {
  const global = (globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage
  if (typeof global === 'function') return global as AsyncStorageClass
  const hooks = nodeBuiltin<{ AsyncLocalStorage?: unknown }>('node:async_hooks')
  return typeof hooks?.AsyncLocalStorage === 'function' ? (hooks.AsyncLocalStorage as AsyncStorageClass) : undefined
}

/**
 * A new `AsyncLocalStorage`.
 * @throws EventrailError where the host has none (a Cloudflare Worker without `nodejs_compat`, a
 * browser): a context cannot follow a request there; pass the ids and context on each call instead.
 */
export function createAsyncStorage<T>(where: string): AsyncStorage<T> {
  const Storage = findAsyncLocalStorage()
  if (Storage === undefined) {
    throw new EventrailError(
      `${where}: this runtime has no AsyncLocalStorage (neither a global one nor node:async_hooks), so a context cannot follow the request; on Cloudflare Workers turn on the nodejs_compat flag, elsewhere pass userId, anonymousId and context on each call`,
    )
  }
  return new Storage<T>()
}
