import type * as Zlib from 'node:zlib'
import { loadNodeBuiltin, nodeBuiltin } from './runtime'

type WebStream = CompressionStream | DecompressionStream

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
 * `text` in UTF-8 (or those bytes themselves), gzipped: with `node:zlib` where the host has it,
 * else with `CompressionStream`.
 */
export async function gzipText(text: string | Uint8Array): Promise<Uint8Array> {
  const zlib = await loadNodeBuiltin<typeof Zlib>('node:zlib')
  if (zlib) {
    return new Promise((resolve, reject) => zlib.gzip(text, (err, result) => (err ? reject(err) : resolve(result))))
  }
  return pipeThrough(new CompressionStream('gzip'), typeof text === 'string' ? new TextEncoder().encode(text) : text)
}

/**
 * Gunzips `bytes`: synchronously with `node:zlib` where the host has it (so a recorder keeps the
 * order of the requests it is given), else with `DecompressionStream`.
 */
export function gunzipBytes(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
  const zlib = nodeBuiltin<typeof Zlib>('node:zlib')
  if (zlib) return zlib.gunzipSync(bytes)
  return pipeThrough(new DecompressionStream('gzip'), bytes)
}

async function pipeThrough(stream: WebStream, bytes: Uint8Array): Promise<Uint8Array> {
  const writer = stream.writable.getWriter()
  // A failure surfaces where the readable side is read; these two promises must not reject unheard.
  writer
    .write(bytes as Uint8Array<ArrayBuffer>)
    .then(() => writer.close())
    .catch(() => undefined)
  return new Uint8Array(await new Response(stream.readable).arrayBuffer())
}
