/**
 * What the library needs from its host, found at run time, so that one build runs in Node, Bun,
 * Deno, Cloudflare Workers and Vercel's Edge Runtime. No `node:` module is imported where a
 * bundler can see it: Node built-ins come from `process.getBuiltinModule` where the host has it,
 * and every Node-only API (`Buffer`, `process.on`, a timer's `unref`) has a guard or a web-API
 * fallback.
 * @module
 */

interface HostProcess {
  readonly version?: unknown
  getBuiltinModule?(id: string): unknown
  on?(event: string, listener: () => void): unknown
}

interface NodeBuffer {
  byteLength(text: string, encoding: 'utf8'): number
  from(text: string, encoding: 'utf8'): { toString(encoding: 'base64'): string }
}

interface HostGlobals {
  readonly process?: unknown
  readonly Buffer?: NodeBuffer
  readonly Bun?: { readonly version?: unknown }
  readonly Deno?: { readonly version?: { readonly deno?: unknown } }
  readonly EdgeRuntime?: unknown
  readonly navigator?: { readonly userAgent?: unknown }
}

const host = globalThis as HostGlobals

function hostProcess(): HostProcess | undefined {
  const candidate = host.process
  return typeof candidate === 'object' && candidate !== null ? candidate : undefined
}

/**
 * A Node built-in module (`'node:zlib'`), loaded synchronously through `process.getBuiltinModule`
 * (Node ≥ 20.16, Bun, Deno, workerd with `nodejs_compat`); `undefined` where the host has none.
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  const process = hostProcess()
  if (typeof process?.getBuiltinModule !== 'function') return undefined
  try {
    return (process.getBuiltinModule(id) as T | null | undefined) ?? undefined
  } catch {
    return undefined
  }
}

/**
 * Whether this host can gzip a body: with `node:zlib` (Node, Bun, Deno, workerd with
 * `nodejs_compat`) or the web `CompressionStream` (browsers, Workers). Vercel's Edge Runtime has
 * neither: there the client sends bodies uncompressed (see the `compress` option).
 */
export function canGzip(): boolean {
  // CompressionStream first: where it exists, nothing has to be loaded to answer.
  return typeof CompressionStream === 'function' || nodeBuiltin('node:zlib') !== undefined
}

/**
 * Imports a module whose name no bundler can see (the specifier is a variable, and webpack and
 * Vite are told to leave it alone), so that a build for Workers or the Edge Runtime never tries to
 * resolve it. Rejects where the host cannot load it.
 */
export function importAtRunTime(specifier: string): Promise<unknown> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)
}

/**
 * A Node built-in module: from `process.getBuiltinModule`, else (Node 20 before 20.16) imported at
 * run time; `undefined` where the host has no such module.
 */
export async function loadNodeBuiltin<T>(id: `node:${string}`): Promise<T | undefined> {
  const builtin = nodeBuiltin<T>(id)
  if (builtin !== undefined || hostProcess() === undefined) return builtin
  try {
    return (await importAtRunTime(id)) as T
  } catch {
    return undefined
  }
}

/**
 * The number of bytes `text` takes in UTF-8, without encoding it: `Buffer.byteLength` where the
 * host has `Buffer`, else a count over the UTF-16 code units.
 */
export function utf8ByteLength(text: string): number {
  return host.Buffer ? host.Buffer.byteLength(text, 'utf8') : countUtf8Bytes(text)
}

/**
 * The UTF-8 length of `text`, counted: 1 byte below U+0080, 2 below U+0800, 4 for a surrogate
 * pair, 3 for anything else (a lone surrogate counts as U+FFFD, as `TextEncoder` writes it).
 * @internal exported for its tests; use {@link utf8ByteLength}.
 */
export function countUtf8Bytes(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) continue
    if (unit < 0x800) bytes += 1
    else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2 // two code units, four bytes
      i++
    } else bytes += 2
  }
  return bytes
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000
}

/** `text` encoded in UTF-8, then in base64: with `Buffer` where the host has it, else `TextEncoder` and `btoa`. */
export function base64Utf8(text: string): string {
  if (host.Buffer) return host.Buffer.from(text, 'utf8').toString('base64')
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * The runtime, for the `User-Agent`: `node v22.11.0`, `bun 1.4.5`, `deno 2.9.6`, `workerd`
 * (Cloudflare Workers), `edge-runtime` (Vercel), else `unknown`.
 */
export function runtimeDescription(): string {
  if (typeof host.Bun?.version === 'string') return `bun ${host.Bun.version}`
  if (typeof host.Deno?.version?.deno === 'string') return `deno ${host.Deno.version.deno}`
  if (host.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd'
  if (typeof host.EdgeRuntime === 'string') return 'edge-runtime'
  const version = hostProcess()?.version
  return typeof version === 'string' && version !== '' ? `node ${version}` : 'unknown'
}

/**
 * Calls a timer's `unref()` (or `ref()`) where it has one. Never throws: in Workers and the Edge
 * Runtime a timer is a number, and a host whose `unref` fails leaves the timer as it was (it still
 * runs and can still be cleared).
 */
export function setTimerRef(handle: unknown, ref: boolean): void {
  if (typeof handle !== 'object' || handle === null) return
  const method = (handle as { ref?: unknown; unref?: unknown })[ref ? 'ref' : 'unref']
  if (typeof method !== 'function') return
  try {
    method.call(handle)
  } catch {
    // The host cannot (un)ref this timer: it keeps its state, which never makes it fire twice or leak.
  }
}

/**
 * Adds a listener to a `process` event (`beforeExit`) where the host has `process.on`.
 * @returns whether the listener was added; never throws.
 */
export function onProcessEvent(event: string, listener: () => void): boolean {
  const process = hostProcess()
  if (typeof process?.on !== 'function') return false
  try {
    process.on(event, listener)
    return true
  } catch {
    return false
  }
}
